/* Census signatures of the prefiltered images, which the SGM cost volume
 * (sd-cuda-cost-volume.cu) and the belief propagation data costs
 * (sd-cuda-bp.h) read. */
#include "sd-cuda-internal.h"
#include "sd-cuda-chain.cuh"

#define SD_CEN_BX 32
#define SD_CEN_BY 8
#define SD_CEN_RX 4
#define SD_CEN_RY 3
#define SD_CEN_TW (SD_CEN_BX + 2 * SD_CEN_RX)   /* tile bytes a row: 40 */

/* Bits in raster order of the window, centre skipped, 1 where the
 * neighbour is darker: the reference's order (common/cpu/cost.c).  The 5x5
 * and centre-symmetric windows a comparison at a time; the default 9x7
 * four at a time below. */
template < int WINDOW > __global__ void
sd_census_kernel (const uint8_t * img, uint64_t * signature, int width,
    int height)
{
  sd_chain_wait ();
  __shared__ uint8_t tile[SD_CEN_BY + 2 * SD_CEN_RY][SD_CEN_BX +
      2 * SD_CEN_RX];
  const size_t plane = (size_t) width * height;
  img += blockIdx.z * plane;
  signature += blockIdx.z * plane;
  const int x0 = blockIdx.x * SD_CEN_BX, y0 = blockIdx.y * SD_CEN_BY;
  sd_cuda_load_tile (&tile[0][0], SD_CEN_BX + 2 * SD_CEN_RX, img, width,
      height, x0, y0, SD_CEN_RX, SD_CEN_RY, SD_CEN_BX + 2 * SD_CEN_RX,
      SD_CEN_BY + 2 * SD_CEN_RY);
  __syncthreads ();
  const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  if (x >= width || y >= height)
    return;
  const int cx = threadIdx.x + SD_CEN_RX, cy = threadIdx.y + SD_CEN_RY;
  const int rx = WINDOW == SD_CENSUS_5X5 ? 2 : 4;
  const int ry = WINDOW == SD_CENSUS_5X5 ? 2 : 3;
  const uint8_t centre = tile[cy][cx];
  uint64_t bits = 0;
#pragma unroll
  for (int dy = -ry; dy <= ry; dy++) {
#pragma unroll
    for (int dx = -rx; dx <= rx; dx++) {
      if (WINDOW == SD_CENSUS_CS9X7) {
        if (dy > 0 || (dy == 0 && dx >= 0))
          continue;
        bits = bits << 1 | (uint64_t) (tile[cy + dy][cx + dx] <
            tile[cy - dy][cx - dx]);
      } else {
        if (dx == 0 && dy == 0)
          continue;
        bits = bits << 1 | (uint64_t) (tile[cy + dy][cx + dx] < centre);
      }
    }
  }
  signature[(size_t) y * width + x] = bits;
}

/* Bit 7 of each byte: a's byte < b's byte, unsigned, four bytes at once.
 * s's byte keeps bit 7 where a's low seven bits are >= b's (setting a's bit
 * 7 first, no borrow crosses a byte); the top bits decide where they
 * differ. */
__device__ __forceinline__ uint32_t
sd_bytes_less (uint32_t a, uint32_t b)
{
  const uint32_t top = 0x80808080u;
  const uint32_t s = (a | top) - (b & ~top);
  return ((~a & b) | (~(a ^ b) & ~s)) & top;
}

/* The four bytes of v compared with the centre (in every byte of c4) as
 * four census bits, the lowest address first (the most significant): the
 * multiply moves the bits at 0, 8, 16 and 24 to 27, 26, 25 and 24, and
 * every other product lands outside those four. */
__device__ __forceinline__ uint32_t
sd_census_nibble (uint32_t v, uint32_t c4)
{
  return ((sd_bytes_less (v, c4) >> 7) * 0x08040201u) >> 24;
}

/* The full 9x7 window (the default) with four comparisons an instruction
 * sequence: a thread reads its window's rows as aligned words and picks
 * its nine bytes out with byte permutes.  A comparison at a time, the
 * kernel took 0.10 ms at 1920x1080 on an H100, bound by its instructions
 * (docs/performance.md). */
__global__ void
sd_census_9x7_kernel (const uint8_t * img, uint64_t * signature, int width,
    int height)
{
  sd_chain_wait ();
  __shared__ uint32_t tile[SD_CEN_BY + 2 * SD_CEN_RY][SD_CEN_TW / 4];
  const size_t plane = (size_t) width * height;
  img += blockIdx.z * plane;
  signature += blockIdx.z * plane;
  const int x0 = blockIdx.x * SD_CEN_BX, y0 = blockIdx.y * SD_CEN_BY;
  sd_cuda_load_tile ((uint8_t *) & tile[0][0], SD_CEN_TW, img, width, height,
      x0, y0, SD_CEN_RX, SD_CEN_RY, SD_CEN_TW, SD_CEN_BY + 2 * SD_CEN_RY);
  __syncthreads ();
  const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  if (x >= width || y >= height)
    return;
  /* the window's columns are tile bytes threadIdx.x .. threadIdx.x + 8:
   * in words w .. w + 2, from byte `shift` of word w */
  const int w = threadIdx.x >> 2, shift = threadIdx.x & 3;
  const uint32_t sel = 0x3210 + 0x1111 * shift;
  const uint32_t *centre_row = tile[threadIdx.y + SD_CEN_RY];
  const uint32_t centre = __byte_perm (centre_row[w + 1], centre_row[w + 2],
      sel) & 0xff;
  const uint32_t c4 = centre * 0x01010101u;
  uint64_t bits = 0;
#pragma unroll
  for (int r = 0; r <= 2 * SD_CEN_RY; r++) {
    const uint32_t *row = tile[threadIdx.y + r];
    const uint32_t a = row[w], b = row[w + 1], c = row[w + 2];
    const uint32_t left = __byte_perm (a, b, sel);      /* dx -4 .. -1 */
    if (r == SD_CEN_RY) {
      const uint32_t right = __byte_perm (b, c, sel + 0x1111);  /* 1 .. 4 */
      bits = bits << 8 | sd_census_nibble (left, c4) << 4 |
          sd_census_nibble (right, c4);
    } else {
      const uint32_t mid = __byte_perm (b, c, sel);     /* dx 0 .. 3 */
      const uint32_t last = c >> (8 * shift) & 0xff;    /* dx 4 */
      bits = bits << 9 | sd_census_nibble (left, c4) << 5 |
          sd_census_nibble (mid, c4) << 1 | (last < centre);
    }
  }
  signature[(size_t) y * width + x] = bits;
}

cudaError_t
sd_cuda_census (const uint8_t * img, uint64_t * signature, int width,
    int height, SdCensusWindow window, cudaStream_t stream)
{
  dim3 block (SD_CEN_BX, SD_CEN_BY);
  dim3 grid (sd_cuda_div_up (width, SD_CEN_BX),
      sd_cuda_div_up (height, SD_CEN_BY), 2);
  switch (window) {
    case SD_CENSUS_5X5:
      return sd_cuda_launch_chained (sd_census_kernel < SD_CENSUS_5X5 >,
          grid, block, 0, stream, img, signature, width, height);
    case SD_CENSUS_CS9X7:
      return sd_cuda_launch_chained (sd_census_kernel < SD_CENSUS_CS9X7 >,
          grid, block, 0, stream, img, signature, width, height);
    default:
      return sd_cuda_launch_chained (sd_census_9x7_kernel, grid, block, 0,
          stream, img, signature, width, height);
  }
}
