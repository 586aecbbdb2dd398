/* Prefilters: median 3x3 and 5x5, rank, and median then rank.  Each block
 * reads its tile plus the window's halo into shared memory once (clamped
 * at the image edge, as the reference does), so every pixel of the image is
 * read from device memory about once per filter (Banz et al. 2010). */
#include "sd-cuda-internal.h"

#define SD_PRE_BX 32
#define SD_PRE_BY 8
#define SD_PRE_MAX_R 7          /* rank window 15 */

enum
{ SD_PRE_MEDIAN3, SD_PRE_MEDIAN5, SD_PRE_RANK };

/* Exact median of N values: N/2 + 1 bubble passes leave the N/2 smallest
 * in order.  Fully unrolled, so v stays in registers. */
template < int N > __device__ __forceinline__ uint8_t
sd_median_of (uint32_t * v)
{
#pragma unroll
  for (int i = 0; i <= N / 2; i++) {
#pragma unroll
    for (int j = N - 1; j > i; j--) {
      const uint32_t a = v[j - 1], b = v[j];
      v[j - 1] = min (a, b);
      v[j] = max (a, b);
    }
  }
  return (uint8_t) v[N / 2];
}

template < int MODE > __global__ void
sd_prefilter_kernel (const uint8_t * src, uint8_t * dst, int width,
    int height, int r)
{
  __shared__ uint8_t tile[SD_PRE_BY + 2 * SD_PRE_MAX_R][SD_PRE_BX +
      2 * SD_PRE_MAX_R];
  const size_t plane = (size_t) width * height;
  src += blockIdx.z * plane;
  dst += blockIdx.z * plane;
  const int x0 = blockIdx.x * SD_PRE_BX, y0 = blockIdx.y * SD_PRE_BY;
  sd_cuda_load_tile (&tile[0][0], SD_PRE_BX + 2 * SD_PRE_MAX_R, src, width,
      height, x0, y0, r, r, SD_PRE_BX + 2 * r, SD_PRE_BY + 2 * r);
  __syncthreads ();
  const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  if (x >= width || y >= height)
    return;
  const int cx = threadIdx.x + r, cy = threadIdx.y + r;
  uint8_t out;
  if (MODE == SD_PRE_MEDIAN3) {
    uint32_t v[9];
#pragma unroll
    for (int dy = -1; dy <= 1; dy++)
#pragma unroll
      for (int dx = -1; dx <= 1; dx++)
        v[(dy + 1) * 3 + dx + 1] = tile[cy + dy][cx + dx];
    out = sd_median_of < 9 > (v);
  } else if (MODE == SD_PRE_MEDIAN5) {
    uint32_t v[25];
#pragma unroll
    for (int dy = -2; dy <= 2; dy++)
#pragma unroll
      for (int dx = -2; dx <= 2; dx++)
        v[(dy + 2) * 5 + dx + 2] = tile[cy + dy][cx + dx];
    out = sd_median_of < 25 > (v);
  } else {
    const uint8_t c = tile[cy][cx];
    int rank = 0;
    for (int dy = -r; dy <= r; dy++)
      for (int dx = -r; dx <= r; dx++)
        rank += tile[cy + dy][cx + dx] < c;
    out = (uint8_t) rank;
  }
  dst[(size_t) y * width + x] = out;
}

static cudaError_t
launch (int mode, const uint8_t * src, uint8_t * dst, int width, int height,
    int r, cudaStream_t stream)
{
  dim3 block (SD_PRE_BX, SD_PRE_BY);
  dim3 grid (sd_cuda_div_up (width, SD_PRE_BX),
      sd_cuda_div_up (height, SD_PRE_BY), 2);
  switch (mode) {
    case SD_PRE_MEDIAN3:
      sd_prefilter_kernel < SD_PRE_MEDIAN3 > <<< grid, block, 0, stream >>>
          (src, dst, width, height, 1);
      break;
    case SD_PRE_MEDIAN5:
      sd_prefilter_kernel < SD_PRE_MEDIAN5 > <<< grid, block, 0, stream >>>
          (src, dst, width, height, 2);
      break;
    default:
      sd_prefilter_kernel < SD_PRE_RANK > <<< grid, block, 0, stream >>>
          (src, dst, width, height, r);
      break;
  }
  return cudaGetLastError ();
}

cudaError_t
sd_cuda_prefilter (const SdParams * p, const uint8_t * src, uint8_t * dst,
    uint8_t * tmp, int width, int height, cudaStream_t stream)
{
  const int r = p->rank_window / 2;
  cudaError_t e;
  switch (p->prefilter) {
    case SD_PREFILTER_NONE:
      return cudaMemcpyAsync (dst, src, (size_t) 2 * width * height,
          cudaMemcpyDeviceToDevice, stream);
    case SD_PREFILTER_MEDIAN3:
      return launch (SD_PRE_MEDIAN3, src, dst, width, height, 1, stream);
    case SD_PREFILTER_MEDIAN5:
      return launch (SD_PRE_MEDIAN5, src, dst, width, height, 2, stream);
    case SD_PREFILTER_RANK:
      return launch (SD_PRE_RANK, src, dst, width, height, r, stream);
    case SD_PREFILTER_MEDIAN_RANK:
      e = launch (SD_PRE_MEDIAN3, src, tmp, width, height, 1, stream);
      if (e != cudaSuccess)
        return e;
      return launch (SD_PRE_RANK, tmp, dst, width, height, r, stream);
  }
  return cudaErrorInvalidValue;
}
