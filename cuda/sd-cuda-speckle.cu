/* Speckle removal (sd-speckle.h) on the GPU: the segments are the
 * connected components of a union-find over the pixels, built with atomics
 * (a pixel's parent only ever moves to a smaller index, so every root is
 * its segment's smallest pixel).  Which pixels share a segment does not
 * depend on the order the unions ran in, so the speckles are the ones
 * common/cpu/refine.c floods. */
#include "sd-cuda-internal.h"
#include "sd-speckle.h"

/* The root of pixel i, halving the path on the way (each pixel passed is
 * pointed at its grandparent, with atomicMin so that a parent still only
 * moves down): the trees the unions build stay shallow.  The parents are
 * read past L1, which is not coherent between multiprocessors: a stale
 * parent is still an ancestor, but reading the current one ends sooner. */
__device__ __forceinline__ int32_t
sd_root (int32_t * parent, int32_t i)
{
  for (;;) {
    const int32_t p = __ldcg (parent + i);
    if (p == i)
      return i;
    const int32_t gp = __ldcg (parent + p);
    if (gp != p)
      atomicMin (parent + i, gp);
    i = gp;
  }
}

/* Joins the segments of pixels a and b: the larger root is linked under
 * the smaller one, unless another union moved it meanwhile, in which case
 * it retries from where that union put it. */
__device__ void
sd_unite (int32_t * parent, int32_t a, int32_t b)
{
  for (;;) {
    a = sd_root (parent, a);
    b = sd_root (parent, b);
    if (a == b)
      return;
    if (a > b) {
      const int32_t t = a;
      a = b;
      b = t;
    }
    const int32_t old = atomicMin (parent + b, a);
    if (old == b)
      return;
    b = old;
  }
}

__global__ void
sd_speckle_init_kernel (int32_t * parent, int32_t * size, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  parent[i] = i;
  size[i] = 0;
}

__global__ void
sd_speckle_unite_kernel (const int16_t * disp, int32_t * parent, int width,
    int height)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  const int32_t i = y * width + x;
  const int v = disp[i];
  if (x + 1 < width && sd_speckle_joined (v, disp[i + 1]))
    sd_unite (parent, i, i + 1);
  if (y + 1 < height && sd_speckle_joined (v, disp[i + width]))
    sd_unite (parent, i, i + width);
}

/* Each valid pixel counts itself in its root, and points straight at it
 * (an ancestor, so the other threads' walks stay right) for the last
 * kernel's lookups.  The lanes of a warp that share a root add together:
 * a large segment would otherwise queue every one of its pixels' atomics
 * on one address. */
__global__ void
sd_speckle_count_kernel (const int16_t * disp, int32_t * parent,
    int32_t * size, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool valid = i < n && disp[i] > 0;
  int32_t r = -1;
  if (valid) {
    r = sd_root (parent, i);
    parent[i] = r;
  }
  const unsigned same = __match_any_sync (0xffffffffu, r);
  if (valid && __ffs (same) - 1 == (int) (threadIdx.x & 31))
    atomicAdd (size + r, __popc (same));
}

__global__ void
sd_speckle_remove_kernel (int16_t * disp, uint8_t * conf,
    const int32_t * parent, const int32_t * size, int n, int min_size)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || disp[i] <= 0 || size[parent[i]] >= min_size)
    return;
  disp[i] = SD_DISP_INVALID;
  if (conf)
    conf[i] = 0;
}

size_t
sd_cuda_speckle_bytes (int width, int height)
{
  return 2 * (size_t) width * height * sizeof (int32_t);
}

cudaError_t
sd_cuda_remove_speckles (int16_t * disp, uint8_t * conf, void *work,
    int width, int height, cudaStream_t stream)
{
  const int min_size = sd_speckle_min_size (width, height);
  if (min_size <= 1)
    return cudaSuccess;         /* no segment has fewer than one pixel */
  const int n = width * height;
  int32_t *parent = (int32_t *) work, *size = parent + n;
  const int threads = 256, blocks = sd_cuda_div_up (n, threads);
  const dim3 block (32, 8);
  const dim3 grid (sd_cuda_div_up (width, 32), sd_cuda_div_up (height, 8));
  sd_speckle_init_kernel <<< blocks, threads, 0, stream >>> (parent, size,
      n);
  sd_speckle_unite_kernel <<< grid, block, 0, stream >>> (disp, parent,
      width, height);
  sd_speckle_count_kernel <<< blocks, threads, 0, stream >>> (disp, parent,
      size, n);
  sd_speckle_remove_kernel <<< blocks, threads, 0, stream >>> (disp, conf,
      parent, size, n, min_size);
  return cudaGetLastError ();
}
