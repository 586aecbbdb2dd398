/* The C API of the CUDA backend: common/ and the tests reach CUDA only
 * through these declarations.
 *
 * sd_cuda_backend is what SdEngine uses.  The SdCudaPipeline functions are
 * the same pipeline for callers that hold device memory or want GPU timings
 * (sd-bench, the CUDA tests); they need no CUDA header. */
#ifndef SD_CUDA_H
#define SD_CUDA_H

#include "sd-engine.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const SdBackend sd_cuda_backend;

/* One stream, one set of buffers (kept while the size and the disparity
 * range stay), on one device.  Not thread-safe; any thread may call. */
typedef struct SdCudaPipeline SdCudaPipeline;

SdCudaPipeline *sd_cuda_pipeline_new (int device_id, SdError * err);
void sd_cuda_pipeline_free (SdCudaPipeline * pipeline);

/* Host planes in and out, as SdEngine's process. */
SdStatus sd_cuda_pipeline_process (SdCudaPipeline * pipeline,
    const SdParams * params, const SdPlane * left, const SdPlane * right,
    SdPlane * out, SdError * err);

/* Planes whose data points to device memory (any accepted format in, GRAY16
 * out).  Returns once the output is written. */
SdStatus sd_cuda_pipeline_process_device (SdCudaPipeline * pipeline,
    const SdParams * params, const SdPlane * left, const SdPlane * right,
    SdPlane * out, SdError * err);

/* Timings of the pipeline on host planes left and right, in ms: warmup
 * runs, then runs timed with CUDA events on the pipeline's stream. */
typedef struct
{
  double device_median, device_min;     /* device memory in and out */
  double e2e_median, e2e_min;   /* host memory in and out: upload, kernels,
                                 * download (CUDA events) */
  double wall_median, wall_min; /* the whole call, host copies included */
  /* device memory in and out, stage by stage (medians): prefilter,
   * census and brightness matching; path aggregation; winner-takes-all
   * and the right disparity; left-right check, median, hole filling,
   * output; all 0 with bands */
  double stage_median[4];
  int runs;
  unsigned long long volume_bytes;      /* aggregation scratch in use */
  /* every buffer the pipeline holds on the device (one allocation, and the
   * rectification maps): its footprint, less the CUDA context's own */
  unsigned long long device_bytes;
  int eight_bit;                /* per-path 8-bit volumes (else 16-bit sum) */
  int band_rows;                /* output rows a band (sd-band.h), 0: none */
} SdCudaTimings;

SdStatus sd_cuda_pipeline_time (SdCudaPipeline * pipeline,
    const SdParams * params, const SdPlane * left, const SdPlane * right,
    int warmup, int runs, SdCudaTimings * timings, SdError * err);

/* Rectifies every later pair through rect (NULL: none); no pair may be in
 * flight.  The caller keeps rect alive until the next call. */
SdStatus sd_cuda_pipeline_set_rectification (SdCudaPipeline * pipeline,
    const SdRectification * rect, SdError * err);

/* The device's name, for reports ("" when unknown). */
const char *sd_cuda_pipeline_device_name (const SdCudaPipeline * pipeline);

#ifdef __cplusplus
}
#endif

#endif
