/* Speckle removal (sd-speckle.h) on the GPU: the segments are the
 * connected components of a union-find over the pixels, built with atomics
 * (a pixel's parent only ever moves to a smaller index, so every root is
 * its segment's smallest pixel), first within tiles in shared memory, then
 * across their seams in device memory.  Which pixels share a segment does
 * not depend on the order the unions ran in, so the speckles are the ones
 * common/cpu/refine.c floods. */
#include "sd-cuda-internal.h"
#include "sd-cuda-chain.cuh"
#include "sd-speckle.h"

/* How a root walk reads a parent.  In device memory past L1, which is
 * not coherent between multiprocessors: a stale parent is still an
 * ancestor, but reading the current one ends sooner.  In a tile's shared
 * memory volatile, since another thread's atomicMin may move it. */
struct SdParentInDevice
{
  static __device__ __forceinline__ int32_t read (int32_t * p)
  {
    return __ldcg (p);
  }
};

struct SdParentInTile
{
  static __device__ __forceinline__ int32_t read (int32_t * p)
  {
    return *(volatile int32_t *) p;
  }
};

/* The root of pixel i, halving the path on the way (each pixel passed is
 * pointed at its grandparent, with atomicMin so that a parent still only
 * moves down): the trees the unions build stay shallow. */
template < class Parent > __device__ __forceinline__ int32_t
sd_root (int32_t * parent, int32_t i)
{
  for (;;) {
    const int32_t p = Parent::read (parent + i);
    if (p == i)
      return i;
    const int32_t gp = Parent::read (parent + p);
    if (gp != p)
      atomicMin (parent + i, gp);
    i = gp;
  }
}

/* Joins the segments of pixels a and b: the larger root is linked under
 * the smaller one, unless another union moved it meanwhile, in which case
 * it retries from where that union put it. */
template < class Parent > __device__ void
sd_unite (int32_t * parent, int32_t a, int32_t b)
{
  for (;;) {
    a = sd_root < Parent > (parent, a);
    b = sd_root < Parent > (parent, b);
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

/* The tiles the segments are first joined in: within a tile the unions run
 * in shared memory, where a root walk's steps take tens of cycles instead
 * of an L2 round trip each; only the tiles' seams go through device
 * memory.  On small frames the unions were the speckle pass's longest
 * kernel, a chain of dependent L2 reads per pixel. */
#define SD_SPECKLE_TILE_W 32
#define SD_SPECKLE_TILE_H 32

/* Joins each tile's pixels to their neighbours in the tile, then points
 * every pixel at its tile root (its frame index: at most the pixel's own,
 * as sd_root's parents must be) and clears the counts. */
__global__ void
__launch_bounds__ (SD_SPECKLE_TILE_W * SD_SPECKLE_TILE_H)
sd_speckle_tile_kernel (const int16_t * disp, int32_t * parent,
    int32_t * size, int width, int height)
{
  sd_chain_wait ();
  __shared__ int32_t tile[SD_SPECKLE_TILE_W * SD_SPECKLE_TILE_H];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * SD_SPECKLE_TILE_W;
  const int y0 = blockIdx.y * SD_SPECKLE_TILE_H;
  const int x = x0 + tx, y = y0 + ty;
  const int t = ty * SD_SPECKLE_TILE_W + tx;
  const bool inside = x < width && y < height;
  const int32_t i = y * width + x;
  const int v = inside ? disp[i] : 0;
  tile[t] = t;
  __syncthreads ();
  if (inside && tx + 1 < SD_SPECKLE_TILE_W && x + 1 < width
      && sd_speckle_joined (v, disp[i + 1]))
    sd_unite < SdParentInTile > (tile, t, t + 1);
  if (inside && ty + 1 < SD_SPECKLE_TILE_H && y + 1 < height
      && sd_speckle_joined (v, disp[i + width]))
    sd_unite < SdParentInTile > (tile, t, t + SD_SPECKLE_TILE_W);
  __syncthreads ();
  if (!inside)
    return;
  const int r = sd_root < SdParentInTile > (tile, t);
  parent[i] = (y0 + r / SD_SPECKLE_TILE_W) * width + x0 +
      r % SD_SPECKLE_TILE_W;
  size[i] = 0;
}

/* Joins the tiles across their seams: the first seam_columns * height
 * threads each take a pixel of a tile's last column and its right
 * neighbour, the others a pixel of a tile's last row and the one below. */
__global__ void
sd_speckle_seam_kernel (const int16_t * disp, int32_t * parent, int width,
    int height, int seam_columns, int seam_rows)
{
  sd_chain_wait ();
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  const int across = seam_columns * height;
  int x, y, step;
  if (k < across) {
    x = (k % seam_columns) * SD_SPECKLE_TILE_W + SD_SPECKLE_TILE_W - 1;
    y = k / seam_columns;
    step = 1;
  } else if (k - across < seam_rows * width) {
    x = (k - across) % width;
    y = (k - across) / width * SD_SPECKLE_TILE_H + SD_SPECKLE_TILE_H - 1;
    step = width;
  } else
    return;
  const int32_t i = y * width + x;
  if (sd_speckle_joined (disp[i], disp[i + step]))
    sd_unite < SdParentInDevice > (parent, i, i + step);
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
  sd_chain_wait ();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool valid = i < n && disp[i] > 0;
  int32_t r = -1;
  if (valid) {
    r = sd_root < SdParentInDevice > (parent, i);
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
  sd_chain_wait ();
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
  const dim3 block (SD_SPECKLE_TILE_W, SD_SPECKLE_TILE_H);
  const dim3 grid (sd_cuda_div_up (width, SD_SPECKLE_TILE_W),
      sd_cuda_div_up (height, SD_SPECKLE_TILE_H));
  cudaError_t e = sd_cuda_launch_chained (sd_speckle_tile_kernel, grid,
      block, 0, stream, disp, parent, size, width, height);
  /* the seams between tiles: a tile's last column or row that has a
   * neighbour beyond it */
  const int seam_columns = (width - 1) / SD_SPECKLE_TILE_W;
  const int seam_rows = (height - 1) / SD_SPECKLE_TILE_H;
  const int seams = seam_columns * height + seam_rows * width;
  if (e == cudaSuccess && seams > 0)
    e = sd_cuda_launch_chained (sd_speckle_seam_kernel,
        sd_cuda_div_up (seams, threads), threads, 0, stream, disp, parent,
        width, height, seam_columns, seam_rows);
  if (e == cudaSuccess)
    e = sd_cuda_launch_chained (sd_speckle_count_kernel, blocks, threads, 0,
        stream, disp, parent, size, n);
  if (e == cudaSuccess)
    e = sd_cuda_launch_chained (sd_speckle_remove_kernel, blocks, threads, 0,
        stream, disp, conf, parent, size, n, min_size);
  return e;
}
