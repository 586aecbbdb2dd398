/* sd-cuda-bp.cu: what hierarchical and tiled belief propagation share on
 * the GPU, as common/cpu/bp.c does on the CPU: the float images, the data
 * cost of one pixel and disparity, the layout of per-disparity arrays, and
 * the read-out of beliefs into disparities. */
#ifndef SD_CUDA_BP_H
#define SD_CUDA_BP_H

#include "sd-cuda-internal.h"
#include "sd-cost.h"

/* Per-disparity arrays are (row, disparity, column), with the columns of
 * each row split by parity (the even ones, then the odd ones): rows of
 * pitch = 2 * ceil(w / 2) elements per disparity.  hbp's checkerboard
 * steps need the split (a half-step touches one parity of a row); the
 * read-out reads beliefs in the same layout whichever method wrote them. */
__host__ __device__ __forceinline__ int
sd_cuda_bp_pitch (int w)
{
  return 2 * ((w + 1) / 2);
}

/* Where disparity k of pixel (x, y) lives. */
__device__ __forceinline__ size_t
sd_cuda_bp_at (int x, int y, int k, int D, int pitch)
{
  return ((size_t) y * D + k) * pitch + (x & 1) * (pitch / 2) + (x >> 1);
}

/* What the data cost reads: the census signatures of the prefiltered
 * images (cost census and census-ad: census_left set), the smoothed images
 * (cost ad and census-ad), or both blended (census-ad). */
typedef struct
{
  const float *left, *right;
  const uint64_t *census_left, *census_right;
  int blend, census_max;
  float weight, trunc;
} SdCudaBpCost;

/* sd_cpu_bp_data_cost() for left pixel i matched with right pixel r (the
 * clamped match position). */
__device__ __forceinline__ float
sd_cuda_bp_data_cost (const SdCudaBpCost & c, size_t i, size_t r)
{
  const float ad = fabsf (__fsub_rn (c.left[i], c.right[r]));
  const float raw = !c.census_left ? ad : c.blend ?
      (float) sd_cost_census_ad (__popcll (c.census_left[i] ^
          c.census_right[r]), (int) ad, c.census_max) :
      (float) __popcll (c.census_left[i] ^ c.census_right[r]);
  return __fmul_rn (c.weight, fminf (raw, c.trunc));
}

/* The cost source of params for the smoothed images smooth (left, then
 * right) and census (left, then right; used when params->cost is census). */
static inline SdCudaBpCost
sd_cuda_bp_cost_source (const SdParams * p, const float *smooth,
    const uint64_t * census, size_t npix)
{
  SdCudaBpCost c;
  c.left = smooth;
  c.right = smooth + npix;
  c.census_left = sd_params_uses_census (p) ? census : NULL;
  c.census_right = sd_params_uses_census (p) ? census + npix : NULL;
  c.blend = sd_params_blends_ad (p);
  c.census_max = sd_cost_max (p);
  c.weight = p->data_weight;
  c.trunc = p->data_trunc;
  return c;
}

/* Both images (two packed GRAY8 planes) to float, smoothed with
 * params->sigma as sd_cpu_gaussian() does; smooth holds 2 w h floats, tmp
 * 2 w h more.  Only the ad and census-ad data costs read them: with census
 * costs nothing is enqueued.  Only enqueues. */
cudaError_t sd_cuda_bp_images (const SdParams * params, const uint8_t *
    images, float *smooth, float *tmp, int w, int h, cudaStream_t stream);

/* Beliefs (in the layout above) into out, as sd_cpu_bp_disparity() and
 * sd_cpu_bp_right_disparity() do.  Only enqueues. */
cudaError_t sd_cuda_bp_read_out (const SdParams * params,
    const float *belief, const SdCudaReadOut * out, int w, int h,
    cudaStream_t stream);

#endif
