/* Brightness matching (sd-brightness.h) on the device: the map from both
 * views' histograms, built by the function the CPU runs too, and an image
 * through it, so both give the same bits. */
#include "sd-cuda-internal.h"
#include "sd-brightness.h"

#define LEVELS SD_BRIGHTNESS_LEVELS

/* blockIdx.y the view: each block counts its share of the view in shared
 * memory and adds it to hist (LEVELS counters a view, zeroed before). */
__global__ void
sd_brightness_histogram_kernel (const uint8_t * luma, size_t n,
    uint32_t * hist)
{
  __shared__ uint32_t counts[LEVELS];
  for (int l = threadIdx.x; l < LEVELS; l += blockDim.x)
    counts[l] = 0;
  __syncthreads ();
  const uint8_t *view = luma + blockIdx.y * n;
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
      i += (size_t) gridDim.x * blockDim.x)
    atomicAdd (counts + view[i], 1u);
  __syncthreads ();
  for (int l = threadIdx.x; l < LEVELS; l += blockDim.x)
    if (counts[l])
      atomicAdd (hist + blockIdx.y * LEVELS + l, counts[l]);
}

/* One block of LEVELS threads: the histograms made cumulative (a scan in
 * shared memory), then each thread one level of the map. */
__global__ void
sd_brightness_map_kernel (const uint32_t * hist, uint8_t * map)
{
  __shared__ uint32_t cum[2][LEVELS];
  const int t = threadIdx.x;
  cum[0][t] = hist[t];
  cum[1][t] = hist[LEVELS + t];
  __syncthreads ();
  for (int step = 1; step < LEVELS; step *= 2) {
    const uint32_t add_left = t >= step ? cum[0][t - step] : 0;
    const uint32_t add_right = t >= step ? cum[1][t - step] : 0;
    __syncthreads ();
    cum[0][t] += add_left;
    cum[1][t] += add_right;
    __syncthreads ();
  }
  map[t] = sd_brightness_level (cum[0], cum[1], t);
}

/* dst may be src: each pixel is read and written by one thread */
__global__ void
sd_brightness_apply_kernel (const uint8_t * map, const uint8_t * src,
    uint8_t * dst, size_t n)
{
  __shared__ uint8_t table[LEVELS];
  table[threadIdx.x] = map[threadIdx.x];
  __syncthreads ();
  for (size_t i = (size_t) blockIdx.x * LEVELS + threadIdx.x; i < n;
      i += (size_t) gridDim.x * LEVELS)
    dst[i] = table[src[i]];
}

/* Blocks of LEVELS threads for n pixels, each thread taking some 8: the
 * pixels' loads are independent of each other only across threads (the
 * counts' atomics and the table's lookups order each thread's), so a
 * frame wants many blocks; at most 1024 a view, where the counts' merge
 * (LEVELS atomics a block) would start to cost more than it saves. */
static int
blocks_for (size_t n)
{
  const size_t blocks = (n + LEVELS * 8 - 1) / (LEVELS * 8);
  return (int) (blocks < 1 ? 1 : blocks < 1024 ? blocks : 1024);
}

cudaError_t
sd_cuda_brightness_map (const uint8_t * luma, uint32_t * hist, uint8_t * map,
    int width, int height, cudaStream_t stream)
{
  const size_t n = (size_t) width * height;
  cudaError_t e = cudaMemsetAsync (hist, 0, 2 * LEVELS * sizeof (uint32_t),
      stream);
  if (e != cudaSuccess)
    return e;
  sd_brightness_histogram_kernel <<< dim3 (blocks_for (n), 2), LEVELS, 0,
      stream >>> (luma, n, hist);
  sd_brightness_map_kernel <<< 1, LEVELS, 0, stream >>> (hist, map);
  return cudaGetLastError ();
}

cudaError_t
sd_cuda_apply_brightness_map (const uint8_t * map, const uint8_t * src,
    uint8_t * dst, size_t n, cudaStream_t stream)
{
  sd_brightness_apply_kernel <<< blocks_for (n), LEVELS, 0, stream >>> (map,
      src, dst, n);
  return cudaGetLastError ();
}
