/* What the CUDA stages share: launcher declarations, the sentinels of the
 * disparity maps, and the packed 16-bit helpers of the aggregation.
 *
 * Every launcher takes the engine's stream and returns the launch error, so
 * the backend can turn it into a sentence.  Nothing here keeps state between
 * calls: two engines in one process never see each other. */
#ifndef SD_CUDA_INTERNAL_H
#define SD_CUDA_INTERNAL_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "sd-engine.h"

/* the reference's constants and sd_cost_max(): one definition for both
 * backends */
extern "C" {
#include "cpu/sd-cpu.h"
}

/* Launch geometry and limits read from the device once per engine. */
typedef struct
{
  int sm_count;
  int max_smem_optin;           /* bytes a block may ask for */
  int cooperative;              /* cooperative launches */
} SdCudaDeviceInfo;

/* sd-cuda-luma.cu: any accepted pixel format (not FLOAT) of a pitched
 * device plane into packed GRAY8. */
cudaError_t sd_cuda_luma (const void *src, size_t src_pitch,
    SdPixelFormat format, uint8_t * dst, int width, int height,
    cudaStream_t stream);

/* sd-cuda-rectify.cu: both views (two packed planes in raw and out) through
 * their maps (two planes of int32 x, y pairs: sd-rectify.h). */
cudaError_t sd_cuda_rectify (const int32_t * maps, const uint8_t * raw,
    uint8_t * out, int width, int height, cudaStream_t stream);

/* sd-cuda-brightness.cu: the map of the right view's levels onto the
 * left's histogram (SD_BRIGHTNESS_LEVELS bytes) from luma's two packed
 * planes, through hist (2 x SD_BRIGHTNESS_LEVELS counters of scratch);
 * and n pixels of src through such a map into dst (which may be src). */
cudaError_t sd_cuda_brightness_map (const uint8_t * luma, uint32_t * hist,
    uint8_t * map, int width, int height, cudaStream_t stream);
cudaError_t sd_cuda_apply_brightness_map (const uint8_t * map,
    const uint8_t * src, uint8_t * dst, size_t n, cudaStream_t stream);

/* sd-cuda-prefilter.cu: params->prefilter on both images at once; src and
 * dst hold two packed planes (left, then right) of width * height bytes;
 * tmp is the same size (median then rank). */
cudaError_t sd_cuda_prefilter (const SdParams * params, const uint8_t * src,
    uint8_t * dst, uint8_t * tmp, int width, int height,
    cudaStream_t stream);

/* sd-cuda-cost.cu: census signatures of both images (two packed planes in,
 * two signature planes out). */
cudaError_t sd_cuda_census (const uint8_t * img, uint64_t * signature,
    int width, int height, SdCensusWindow window, cudaStream_t stream);

/* sd-cuda-sgm.cu: aggregation over params->paths directions into volume
 * (scratch of sd_cuda_sgm_volume_bytes() bytes); sd-cuda-wta.cu:
 * winner-takes-all, uniqueness, subpixel and the right-image disparity
 * from it. */
typedef struct
{
  const uint64_t *census_left, *census_right;   /* census costs */
  const uint8_t *image_left, *image_right;      /* AD cost (prefiltered) */
  const uint8_t *guide;         /* left luma, for the adaptive P2 */
  void *volume;
  void *cost_volume;            /* sd_cuda_cost_volume_bytes() of scratch */
  /* the horizontal directions run on aside beside the others (fork then
   * join: events recorded on stream and aside) */
  cudaStream_t aside;
  cudaEvent_t fork, join;
  int rows_strip;               /* the row aggregation's strip, 0: none */
  int deep_reads;               /* more reads of it in flight per scanline */
  int16_t *disp;                /* left disparity, 16 * d or invalid */
  uint8_t *margin;              /* each pixel's margin (sd-confidence.h), or
                                 * NULL when no confidence is asked for */
  uint32_t *right_key;          /* right pixel's min (sum << 8 | k), all ones
                                 * for none, set so by the cost volume's
                                 * kernel (lr-check only) */
  int width, height;
  /* exact bands (NULL: the whole frame): the band's path costs carried
   * across its edges, so that a frame aggregated band by band gets the
   * whole frame's bits */
  const struct SdSgmCarry *carry;
} SdCudaSgmBuffers;

/* What a band of rows exchanges with the bands above and below it, per
 * direction (sd-cuda-sgm.cu's order): in, the path costs of the pixels
 * in the row just outside the band where the direction enters it (the
 * row above for the downward directions, below for the upward ones), in
 * the volumes' 16-bit layout, a row of width * cells-per-pixel; out, where
 * the band's own row on the side it leaves goes.  NULL: the paths start
 * fresh at the band's edge (the frame's edge) or nothing is kept.
 * up_only: the upward directions alone and no volume written (the pass
 * that takes the upward paths' state from the bottom of the frame to each
 * band). */
typedef struct SdSgmCarry
{
  const uint16_t *in[8];
  uint16_t *out[8];
  int up_only;
} SdSgmCarry;
/* Whether direction dir (0..7) runs downwards (1), upwards (-1) or along
 * the rows (0), and the bytes of one carried row for width. */
int sd_cuda_sgm_direction_dy (int dir);
size_t sd_cuda_sgm_carry_row_bytes (const SdParams * params, int width);

/* Whether the per-path costs fit in 8 bits for these parameters (then each
 * path keeps its own 8-bit volume; otherwise paths add into one 16-bit
 * volume). */
int sd_cuda_sgm_uses_8bit (const SdParams * params);
/* What the aggregation leaves for winner-takes-all: one 16-bit sum; 4 or 8
 * 8-bit path volumes; or (8 paths, 8-bit) the two horizontal directions'
 * 8-bit volumes, then the 16-bit sum of the six others
 * (sd-cuda-sgm-rows.cu). */
typedef enum
{
  SD_SGM_VOLUMES_SUM16,
  SD_SGM_VOLUMES_PATHS4,
  SD_SGM_VOLUMES_PATHS8,
  SD_SGM_VOLUMES_ROWS,
} SdSgmVolumes;
SdSgmVolumes sd_cuda_sgm_volumes (const SdParams * params, int rows_strip);
size_t sd_cuda_sgm_volume_bytes (const SdParams * params, int width,
    int height, int rows_strip);
/* sd-cuda-cost-volume.cu: every pixel's and disparity's matching cost into
 * b->cost_volume (sd_cuda_cost_volume_bytes of it), from the census
 * signatures and images of b.  Only enqueues. */
size_t sd_cuda_cost_volume_bytes (const SdParams * params, int width,
    int height);
cudaError_t sd_cuda_cost_volume (const SdParams * params,
    const SdCudaSgmBuffers * b, cudaStream_t stream);
/* sd-cuda-sgm.cu: the path costs of every direction from the cost volume
 * into b->volume.  Only enqueues. */
cudaError_t sd_cuda_sgm (const SdParams * params,
    const SdCudaSgmBuffers * b, cudaStream_t stream);
/* sd-cuda-sgm-rows.cu: the six directions with dy != 0 into one 16-bit
 * sum, from the cost volume, in vertical strips of sd_cuda_sgm_rows_strip()
 * columns (0: not on this device), where sd_cuda_sgm_rows_wanted() (the
 * 32-lane layout only); scratch: sd_cuda_sgm_rows_bytes(); carry: a band's
 * (NULL: the whole frame). */
int sd_cuda_sgm_rows_wanted (const SdParams * params, int width);
int sd_cuda_sgm_rows_strip (const SdCudaDeviceInfo * info, int width);
size_t sd_cuda_sgm_rows_bytes (int width);
cudaError_t sd_cuda_sgm_rows (const SdParams * params, const uint8_t * cost,
    const uint8_t * guide, uint16_t * sum, void *scratch, int width,
    int height, int strip, const struct SdSgmCarry *carry,
    cudaStream_t stream);
cudaError_t sd_cuda_wta (const SdParams * params,
    const SdCudaSgmBuffers * b, cudaStream_t stream);

/* What a belief propagation read-out writes: the left disparity (16 * d or
 * SD_DISP_INVALID), each pixel's margin (NULL: no confidence asked for)
 * and, when sd_params_lr_check() is on, the right pixels' keys (all ones for
 * none, dmin + k in the low byte otherwise). */
typedef struct
{
  int16_t *disp;
  uint8_t *margin;
  uint32_t *right_key;
} SdCudaReadOut;

/* sd-cuda-refine.cu: the left-right check and the median of disp into
 * tmp, when either is on or a confidence is asked for (margin, the
 * read-out's, not NULL: the confidence goes to conf, packed, as
 * sd_cpu_confidence() writes it).  *result: the buffer that holds the
 * checked disparities, tmp or disp itself. */
cudaError_t sd_cuda_check_median (const SdParams * params, int16_t * disp,
    const uint32_t * right_key, const uint8_t * margin, int16_t * tmp,
    uint8_t * conf, int width, int height, cudaStream_t stream,
    int16_t ** result);
/* Hole filling when params ask for it (speckles first, which changes disp
 * and conf; speckle_work: sd_cuda_speckle_bytes()), the guided median when
 * they ask for it (guide: the left luma; filled: width * height int16, the
 * filled map, needed with both), then the output contract into out
 * (pitched). */
cudaError_t sd_cuda_finish (const SdParams * params, int16_t * disp,
    const uint8_t * guide, uint8_t * conf, void *speckle_work,
    int16_t * filled, uint16_t * out, size_t out_pitch, int width,
    int height, cudaStream_t stream);

/* sd-cuda-guided-median.cu: the guided median of disp (sd-guided-median.h,
 * guide the left luma) as the output contract into out (pitched). */
cudaError_t sd_cuda_guided_median (const SdParams * params,
    const int16_t * disp, const uint8_t * guide, uint16_t * out,
    size_t out_pitch, int width, int height, cudaStream_t stream);

/* sd-cuda-speckle.cu: makes the speckles of disp (sd-speckle.h) invalid and
 * their confidence 0 (conf may be NULL); work holds
 * sd_cuda_speckle_bytes (width, height). */
size_t sd_cuda_speckle_bytes (int width, int height);
cudaError_t sd_cuda_remove_speckles (int16_t * disp, uint8_t * conf,
    void *work, int width, int height, cudaStream_t stream);

static inline int
sd_cuda_div_up (int a, int b)
{
  return (a + b - 1) / b;
}

/* Copies a block's window of a plane into shared memory: tw x th pixels
 * starting rx, ry before (x0, y0), rows tile_pitch apart, reading the
 * nearest edge pixel outside the plane as the reference's windows do.
 * Every thread of the block takes part; call __syncthreads () after. */
__device__ __forceinline__ void
sd_cuda_load_tile (uint8_t * tile, int tile_pitch, const uint8_t * src,
    int width, int height, int x0, int y0, int rx, int ry, int tw, int th)
{
  const int threads = blockDim.x * blockDim.y;
  for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < tw * th;
      i += threads) {
    const int ty = i / tw, tx = i % tw;
    const int sy = min (max (y0 + ty - ry, 0), height - 1);
    const int sx = min (max (x0 + tx - rx, 0), width - 1);
    tile[ty * tile_pitch + tx] = src[(size_t) sy * width + sx];
  }
}

#endif
