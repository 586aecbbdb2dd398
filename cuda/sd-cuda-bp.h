/* sd-cuda-bp.cu: what hierarchical and tiled belief propagation share on
 * the GPU, as common/cpu/bp.c does on the CPU: the float images, the data
 * cost of one pixel and disparity, the layout of per-disparity arrays, and
 * the read-out of beliefs into disparities. */
#ifndef SD_CUDA_BP_H
#define SD_CUDA_BP_H

#include "sd-cuda-internal.h"

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

/* sd_cpu_bp_data_cost() for one pixel and disparity: l and r are the
 * (smoothed) intensities, r read at the clamped match position. */
__device__ __forceinline__ float
sd_cuda_bp_data_cost (float l, float r, float weight, float trunc)
{
  return __fmul_rn (weight, fminf (fabsf (__fsub_rn (l, r)), trunc));
}

/* Both images (two packed GRAY8 planes) to float, smoothed with
 * params->sigma as sd_cpu_gaussian() does; smooth holds 2 w h floats, tmp
 * 2 w h more.  Only enqueues. */
cudaError_t sd_cuda_bp_images (const SdParams * params, const uint8_t *
    images, float *smooth, float *tmp, int w, int h, cudaStream_t stream);

/* Beliefs (in the layout above) to disp, 16 * d or SD_DISP_INVALID, and,
 * when params->lr_check is on, right_key in sd_cuda_refine's form, as
 * sd_cpu_bp_disparity() and sd_cpu_bp_right_disparity() do.  Only
 * enqueues. */
cudaError_t sd_cuda_bp_read_out (const SdParams * params,
    const float *belief, int16_t * disp, uint32_t * right_key, int w, int h,
    cudaStream_t stream);

#endif
