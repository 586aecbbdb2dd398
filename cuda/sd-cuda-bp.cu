/* Belief propagation pieces shared by hbp (sd-cuda-hbp.cu) and tiled BP
 * (sd-cuda-tiledbp.cu): the images in float, smoothed as
 * sd_cpu_gaussian() does, and the read-out of beliefs into the left and
 * right disparities.  Every float operation repeats the CPU's, in its
 * order, with explicit round-to-nearest intrinsics (see sd-cuda-hbp.cu). */
#include "sd-cuda-bp.h"
#include "sd-cuda-chain.cuh"
#include "sd-confidence.h"

#define BLOCK 128

static dim3
row_grid (int w, int h)
{
  return dim3 (sd_cuda_div_up (w, BLOCK), h);
}

typedef struct
{
  float tap[SD_GAUSSIAN_MAX_RADIUS + 1];
  int radius;
} GaussianTaps;

/* along x: both images at once (blockIdx.z picks one); radius 0 = copy */
__global__ void
gaussian_x_kernel (const uint8_t * src, float *dst, int w, int h,
    GaussianTaps g)
{
  sd_chain_wait ();
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= w)
    return;
  const size_t plane = (size_t) blockIdx.z * w * h;
  const uint8_t *row = src + plane + (size_t) y * w;
  float sum = g.radius ? __fmul_rn (g.tap[0], (float) row[x]) :
      (float) row[x];
  for (int i = 1; i <= g.radius; i++) {
    const int a = row[min (max (x - i, 0), w - 1)];
    const int b = row[min (max (x + i, 0), w - 1)];
    sum = __fadd_rn (sum, __fmul_rn (g.tap[i], (float) (a + b)));
  }
  dst[plane + (size_t) y * w + x] = sum;
}

__global__ void
gaussian_y_kernel (const float *src, float *dst, int w, int h,
    GaussianTaps g)
{
  sd_chain_wait ();
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= w)
    return;
  const size_t plane = (size_t) blockIdx.z * w * h;
  float sum = __fmul_rn (g.tap[0], src[plane + (size_t) y * w + x]);
  for (int i = 1; i <= g.radius; i++) {
    const float a = src[plane + (size_t) min (max (y - i, 0), h - 1) * w + x];
    const float b = src[plane + (size_t) min (max (y + i, 0), h - 1) * w + x];
    sum = __fadd_rn (sum, __fmul_rn (g.tap[i], __fadd_rn (a, b)));
  }
  dst[plane + (size_t) y * w + x] = sum;
}

__global__ void
disparity_kernel (const float *belief, int16_t * disp, uint8_t * margin,
    int w, int h, int D, int min_disparity, int subpixel, float scale)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= w)
    return;
  if (x < min_disparity) {
    disp[(size_t) y * w + x] = SD_DISP_INVALID;
    if (margin)
      margin[(size_t) y * w + x] = 0;
    return;
  }
  const int pitch = sd_cuda_bp_pitch (w);
  const float *b = belief + sd_cuda_bp_at (x, y, 0, D, pitch);
  int best = 0;
  float best_value = b[0];
  for (int k = 1; k < D; k++) {
    const float v = b[(size_t) k * pitch];
    if (v < best_value) {
      best_value = v;
      best = k;
    }
  }
  if (margin) {
    /* the best belief more than one index away, the first on ties */
    int second = -1;
    float second_value = 0.0f;
    for (int k = 0; k < D; k++) {
      const float v = b[(size_t) k * pitch];
      if (abs (k - best) > 1 && (second < 0 || v < second_value)) {
        second = k;
        second_value = v;
      }
    }
    margin[(size_t) y * w + x] = sd_confidence_bp_margin (second < 0 ?
        0.0f : __fsub_rn (second_value, best_value), scale, second >= 0);
  }
  float d = (float) (min_disparity + best);
  if (subpixel && best > 0 && best < D - 1) {
    const float lo = b[(size_t) (best - 1) * pitch];
    const float hi = b[(size_t) (best + 1) * pitch];
    const float denom = __fsub_rn (__fadd_rn (lo, hi), __fmul_rn (2.0f,
            best_value));
    if (denom > 0)
      d = __fadd_rn (d, __fdiv_rn (__fsub_rn (lo, hi), __fmul_rn (2.0f,
                  denom)));
  }
  disp[(size_t) y * w + x] = (int16_t) __float2int_rn (__fmul_rn (d,
          (float) SD_SUBPIXEL_SCALE));
}

/* the right view's best k in sd_cuda_refine's key form (k in the low
 * byte; all ones for none) */
__global__ void
right_disparity_kernel (const float *belief, uint32_t * right_key, int w,
    int h, int D, int min_disparity)
{
  sd_chain_wait ();
  const int xr = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (xr >= w)
    return;
  const int pitch = sd_cuda_bp_pitch (w);
  const int n = min (D, w - xr - min_disparity);
  int best = -1;
  float best_value = INFINITY;
  for (int k = 0; k < n; k++) {
    const float v = belief[sd_cuda_bp_at (xr + min_disparity + k, y, k, D, pitch)];
    if (v < best_value) {
      best_value = v;
      best = k;
    }
  }
  right_key[(size_t) y * w + xr] = best < 0 ? 0xffffffffu : (uint32_t) best;
}

cudaError_t
sd_cuda_bp_images (const SdParams * p, const uint8_t * images, float *smooth,
    float *tmp, int w, int h, cudaStream_t stream)
{
  if (p->cost != SD_COST_AD && !sd_params_blends_ad (p))
    return cudaSuccess;
  GaussianTaps taps;
  taps.radius = 0;
  if (p->sigma > 0)
    taps.radius = sd_gaussian_kernel (p->sigma, taps.tap);
  const dim3 grid2 (sd_cuda_div_up (w, BLOCK), h, 2);
  if (!taps.radius)
    return sd_cuda_launch_chained (gaussian_x_kernel, grid2, BLOCK, 0, stream,
        images, smooth, w, h, taps);
  const cudaError_t e = sd_cuda_launch_chained (gaussian_x_kernel, grid2,
      BLOCK, 0, stream, images, tmp, w, h, taps);
  if (e != cudaSuccess)
    return e;
  return sd_cuda_launch_chained (gaussian_y_kernel, grid2, BLOCK, 0, stream,
      tmp, smooth, w, h, taps);
}

cudaError_t
sd_cuda_bp_read_out (const SdParams * p, const float *belief,
    const SdCudaReadOut * out, int w, int h, cudaStream_t stream)
{
  /* the scale rounded as the CPU's float product rounds it */
  const float scale = p->data_weight * p->data_trunc;
  /* after the propagation's graph: a plain launch */
  disparity_kernel <<<row_grid (w, h), BLOCK, 0, stream>>> (belief,
      out->disp, out->margin, w, h, p->num_disparities, p->min_disparity,
      p->subpixel, scale);
  cudaError_t e = cudaGetLastError ();
  if (e == cudaSuccess && sd_params_lr_check (p) != SD_LR_CHECK_OFF)
    e = sd_cuda_launch_chained (right_disparity_kernel, row_grid (w, h),
        BLOCK, 0, stream, belief, out->right_key, w, h, p->num_disparities,
        p->min_disparity);
  return e;
}
