/* The image-guided weighted median (sd-guided-median.h) and the output
 * contract: one thread per pixel sorts its samples' keys in registers with
 * the header's network and walks them to half the weight, as
 * common/fast/fast-guided-median.c does in vector lanes. */
#include "sd-cuda-internal.h"
#include "sd-cuda-chain.cuh"
#include "sd-guided-median.h"
#include "sd-output.h"

__device__ __forceinline__ void
sd_order_keys (int *a, int *b)
{
  const int lo = min (*a, *b);
  *b = max (*a, *b);
  *a = lo;
}

/* One pixel; kInside: its whole grid lies inside the image, so no sample
 * needs a bounds check. */
template < bool kInside > __device__ __forceinline__ void
sd_guided_median_pixel (const int16_t * disp, const uint8_t * guide,
    uint64_t depth_scale, uint16_t * out, size_t out_pitch, int width,
    int height, int x, int y)
{
  if (!kInside && (x >= width || y >= height))
    return;
  const size_t at = (size_t) y * width + x;
  int result = disp[at];
  if (result > 0) {
    const int centre_luma = guide[at];
    const int half = SD_GUIDED_MEDIAN_SIDE / 2;
    int key[SD_GUIDED_MEDIAN_SAMPLES];
    int total = 0;
#pragma unroll
    for (int k = 0; k < SD_GUIDED_MEDIAN_SAMPLES; k++) {
      const int xx = x + (k % SD_GUIDED_MEDIAN_SIDE - half) *
          SD_GUIDED_MEDIAN_STEP;
      const int yy = y + (k / SD_GUIDED_MEDIAN_SIDE - half) *
          SD_GUIDED_MEDIAN_STEP;
      /* a hole or a sample outside the image: key 0, no weight */
      key[k] = 0;
      if (kInside || (xx >= 0 && xx < width && yy >= 0 && yy < height)) {
        const size_t q = (size_t) yy * width + xx;
        const int v = disp[q];
        if (v > 0) {
          const int w = sd_guided_median_weight (centre_luma, guide[q]);
          key[k] = v << SD_GUIDED_MEDIAN_WEIGHT_BITS | w;
          total += w;
        }
      }
    }
    SD_GUIDED_MEDIAN_SORT (key, sd_order_keys);
    /* the first key at which the weight reaches half the total */
    int below = 0;
    bool done = false;
#pragma unroll
    for (int k = 0; k < SD_GUIDED_MEDIAN_SAMPLES; k++) {
      below += key[k] & ((1 << SD_GUIDED_MEDIAN_WEIGHT_BITS) - 1);
      if (!done && 2 * below >= total) {
        result = key[k] >> SD_GUIDED_MEDIAN_WEIGHT_BITS;
        done = true;
      }
    }
  }
  uint16_t *row = (uint16_t *) ((uint8_t *) out + (size_t) y * out_pitch);
  row[x] = sd_output_value (result, depth_scale);
}

/* Blocks whose pixels' grids all lie inside the image skip the bounds
 * checks (a branch the whole block takes one way): 0.008 ms of 0.09 at
 * 1080p (docs/performance.md). */
__global__ void
sd_guided_median_kernel (const int16_t * disp, const uint8_t * guide,
    uint64_t depth_scale, uint16_t * out, size_t out_pitch, int width,
    int height)
{
  sd_chain_wait ();
  const int x0 = blockIdx.x * blockDim.x, y0 = blockIdx.y * blockDim.y;
  const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  const int r = SD_GUIDED_MEDIAN_REACH;
  if (x0 >= r && x0 + (int) blockDim.x + r <= width && y0 >= r
      && y0 + (int) blockDim.y + r <= height)
    sd_guided_median_pixel < true > (disp, guide, depth_scale, out,
        out_pitch, width, height, x, y);
  else
    sd_guided_median_pixel < false > (disp, guide, depth_scale, out,
        out_pitch, width, height, x, y);
}

cudaError_t
sd_cuda_guided_median (const SdParams * p, const int16_t * disp,
    const uint8_t * guide, uint16_t * out, size_t out_pitch, int width,
    int height, cudaStream_t stream)
{
  dim3 block (32, 8);
  dim3 grid (sd_cuda_div_up (width, 32), sd_cuda_div_up (height, 8));
  return sd_cuda_launch_chained (sd_guided_median_kernel, grid, block, 0,
      stream, disp, guide, sd_output_depth_scale (p), out, out_pitch, width,
      height);
}
