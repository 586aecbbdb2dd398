/* The CUDA pipeline's own state and the functions its files share
 * (cuda/ only; callers outside use sd-cuda.h):
 *   sd-cuda-backend.cu  the pipeline's life, pairs in flight, the SdBackend
 *   sd-cuda-buffers.cu  where a frame's buffers lie, and its bands
 *   sd-cuda-enqueue.cu  the stages of one pair, in the reference's order
 *   sd-cuda-timing.cu   sd_cuda_pipeline_time */
#ifndef SD_CUDA_PIPELINE_H
#define SD_CUDA_PIPELINE_H

#include "sd-cuda.h"
#include "sd-cuda-internal.h"
#include "sd-cuda-graph.h"

/* One pair in flight: its planes and its disparity on the host (pinned)
 * and on the device, and the events that order its copies, which run on
 * their own streams, against its kernels: uploaded (upload -> kernels),
 * computed (kernels -> download), done (download -> the host).  The
 * kernels' buffers are shared: one stream runs them pair after pair. */
typedef struct
{
  uint8_t *stage_in;            /* pinned: 2 planes of up to 4 bytes a pixel */
  uint16_t *stage_out;          /* pinned */
  uint8_t *stage_conf;          /* pinned */
  uint8_t *raw;                 /* device: the planes as they came */
  uint8_t *luma;                /* device: 2 packed planes: left, right */
  uint16_t *out;                /* device */
  uint8_t *conf;                /* device: the confidence, when asked for */
  cudaEvent_t uploaded, computed, done;
  int width, height;
} SdCudaSlot;

struct SdCudaPipeline
{
  int device;
  bool external;                /* runs in the caller's current context */
  SdCudaDeviceInfo info;
  char device_name[256];
  cudaStream_t stream;          /* the kernels */
  /* the copies of the slots, so that they overlap the kernels of the other
   * slot */
  cudaStream_t upload, download;
  /* SGM's horizontal directions, beside the others (sd-cuda-sgm.cu) */
  cudaStream_t aside;
  cudaEvent_t fork, join;
  /* sd_cuda_sgm_rows_strip() of rows_width, asked once */
  int rows_width, rows_strip;
  cudaEvent_t ev[2];
  cudaEvent_t *marks;           /* stage boundaries, when timing stages */

  /* the size the buffers are carved for; with bands (band_rows, output
   * rows a band, sd-band.h, not 0) the volumes hold a band's rows, and so
   * do the work buffers (pre to margin) of hbp and tiled-bp, whose bands
   * are images of their own */
  int width, height, band_rows;
  /* what chose band_rows when the parameters left it to the pipeline: the
   * bytes the frame needs whole (0: not chosen) and the bound, so that a
   * frame size keeps its bands (and its output) from one pair to the next */
  size_t whole_bytes;
  int chosen_max_memory;

  void *dev_block;
  size_t dev_capacity;
  void *host_block;             /* pinned */
  size_t host_capacity;

  /* carved out of dev_block */
  uint8_t *luma;                /* the luma of the pair being enqueued: its
                                 * slot's */
  uint8_t *pre;
  uint8_t *pre_tmp;
  uint64_t *census;             /* 2 planes */
  void *volume;
  void *cost_volume;
  int16_t *disp, *disp_tmp;
  uint8_t *margin;
  uint32_t *right_key;
  /* sgm in bands: each direction's carried rows (SdSgmCarry), the
   * downward ones twice (the band before's, this band's), the upward ones
   * once for every band edge */
  uint16_t *carry;
  /* their staging carved out of host_block, the rest out of dev_block */
  SdCudaSlot slots[SD_ENGINE_MAX_IN_FLIGHT];
  SdCudaGraph *bp_graph;        /* hbp's or tiled-bp's launches */
  /* rectification: both views' maps on the device (NULL: none), and the
   * rectified luma carved out of dev_block */
  int32_t *rect_maps;
  uint8_t *rect_luma;
  /* with brightness matching (sd_params_matches_brightness): both views'
   * histograms and the map built from them */
  uint32_t *brightness_hist;
  uint8_t *brightness_map;
  /* with bands: a band's luma (both views) and confidence, and the frame's
   * disparities, put together from the bands' kept rows */
  uint8_t *band_luma;
  uint8_t *band_conf;
  int16_t *frame_disp;
  void *speckle;                /* with fill-holes: sd-cuda-speckle.cu's */
  int16_t *filled;              /* with fill-holes and the guided median */
};

/* ---- sd-cuda-backend.cu ------------------------------------------------- */

/* Sets err from a CUDA error: out of memory and no device as such, any
 * other as a backend error naming what was being done. */
SdStatus sd_cuda_fail (SdError * err, cudaError_t e, const char *what);

#define SD_CUDA_CHECK(call, what)                          \
  do {                                                     \
    cudaError_t e_ = (call);                               \
    if (e_ != cudaSuccess)                                 \
      return sd_cuda_fail (err, e_, what);                 \
  } while (0)

/* Makes the pipeline's device current (nothing in the caller's context). */
SdStatus sd_cuda_select_device (SdCudaPipeline * s, SdError * err);
/* Waits for the copies and the kernels: before buffers are freed. */
void sd_cuda_synchronize (SdCudaPipeline * s);
/* One pair of host planes through slot 0 and back to out; timed: the copies
 * bracketed by s->ev. */
SdStatus sd_cuda_process_host (SdCudaPipeline * s,
    const SdParams * p, const SdPlane * left, const SdPlane * right,
    SdPlane * out, bool timed, SdError * err);
/* One pair of device planes to the device plane out; only enqueues. */
SdStatus sd_cuda_enqueue_device (SdCudaPipeline * s,
    const SdParams * p, const SdPlane * left, const SdPlane * right,
    SdPlane * out, SdError * err);

/* ---- sd-cuda-buffers.cu ------------------------------------------------- */

/* Whether the parameters' bands are sgm's exact ones (only the volumes
 * cut) rather than images of their own with overlap (sd-band.h). */
bool sd_cuda_exact_bands (const SdParams * p);
/* The rows the volumes hold for h rows in bands of band_rows (0: whole). */
int sd_cuda_volume_height (const SdParams * p, int h, int band_rows);
/* sgm's directions that go down and up the rows. */
void sd_cuda_sgm_vertical_directions (const SdParams * p, int *down,
    int *up);
/* The strip of SGM's row aggregation for these parameters (0: not used). */
int sd_cuda_pipeline_rows_strip (SdCudaPipeline * s, const SdParams * p,
    int w);
/* Bands chosen and buffers carved for w x h frames under p. */
SdStatus sd_cuda_ensure_buffers (SdCudaPipeline * s,
    const SdParams * p, int w, int h, SdError * err);
void sd_cuda_release_buffers (SdCudaPipeline * s);

/* ---- sd-cuda-enqueue.cu ------------------------------------------------- */

/* Everything after the luma of s->luma, the output to out (device,
 * pitched), the confidence to conf; only enqueues. */
SdStatus sd_cuda_enqueue_stages (SdCudaPipeline * s, const SdParams * p,
    uint16_t * out, size_t out_pitch, uint8_t * conf, SdError * err);

#endif /* SD_CUDA_PIPELINE_H */
