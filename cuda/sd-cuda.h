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

/* stereorectify's remap of frames already in device memory
 * (GstCudaMemory): the components of a frame through rectification maps,
 * with the bits of sd_rectify_component and sd_rectify_component16.  Each
 * map is copied to the device the first time a part names it and kept
 * there, so the host maps must outlive the SdCudaRemap unchanged.  Every
 * call runs in the CUDA context that is current, which must be the one
 * current at sd_cuda_remap_new. */
typedef struct SdCudaRemap SdCudaRemap;

/* One component of a frame (sd-rectify.h's sd_rectify_component). */
typedef struct
{
  const int32_t *map;           /* host: the component's grid, width x height
                                 * (x, y) pairs in 1/256 pixel */
  const void *src;              /* device: the component's sample (0, 0) */
  void *dst;
  int src_stride, dst_stride;   /* bytes from a row to the next */
  int pixel_stride;             /* bytes from a sample to the next */
  int depth, shift;             /* 8: a byte; more: a 16-bit word whose
                                 * value is depth bits from bit shift */
  int width, height;
} SdRemapPart;

#define SD_REMAP_MAX_PARTS 8

SdCudaRemap *sd_cuda_remap_new (SdError * err);
void sd_cuda_remap_free (SdCudaRemap * remap);
/* Remaps n_parts parts (at most SD_REMAP_MAX_PARTS, with at most two maps
 * among them) in one launch; returns once they are written. */
SdStatus sd_cuda_remap (SdCudaRemap * remap, const SdRemapPart * parts,
    int n_parts, SdError * err);

/* The device's name, for reports ("" when unknown). */
const char *sd_cuda_pipeline_device_name (const SdCudaPipeline * pipeline);

#ifdef __cplusplus
}
#endif

#endif
