/* Undistort and rectify: each rectified pixel of both views is the
 * bilinear sample of its raw view at the map's position, through the
 * function the CPU runs too (sd-rectify.h), so both give the same bits. */
#include "sd-cuda-internal.h"
#include "sd-rectify.h"

/* One thread a pixel, blockIdx.z the view: a map entry is one 8-byte
 * load, and the four taps of neighbouring threads share cache lines. */
__global__ void
sd_rectify_kernel (const int2 * maps, const uint8_t * raw, uint8_t * out,
    int width, int height)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= width)
    return;
  const size_t plane = (size_t) width * height;
  const size_t i = (size_t) y * width + x;
  const int2 m = maps[blockIdx.z * plane + i];
  out[blockIdx.z * plane + i] = sd_rectify_sample (raw + blockIdx.z * plane,
      width, height, m.x, m.y);
}

cudaError_t
sd_cuda_rectify (const int32_t * maps, const uint8_t * raw, uint8_t * out,
    int width, int height, cudaStream_t stream)
{
  const int threads = 128;
  dim3 grid (sd_cuda_div_up (width, threads), height, 2);
  sd_rectify_kernel <<< grid, threads, 0, stream >>> ((const int2 *) maps,
      raw, out, width, height);
  return cudaGetLastError ();
}
