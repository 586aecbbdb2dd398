/* Census signatures of the prefiltered images, which the SGM cost volume
 * (sd-cuda-cost-volume.cu) and the belief propagation data costs
 * (sd-cuda-bp.h) read. */
#include "sd-cuda-internal.h"

#define SD_CEN_BX 32
#define SD_CEN_BY 8
#define SD_CEN_RX 4
#define SD_CEN_RY 3

/* Bits in raster order of the window, centre skipped, 1 where the
 * neighbour is darker: the reference's order (common/cpu/cost.c). */
template < int WINDOW > __global__ void
sd_census_kernel (const uint8_t * img, uint64_t * signature, int width,
    int height)
{
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

cudaError_t
sd_cuda_census (const uint8_t * img, uint64_t * signature, int width,
    int height, SdCensusWindow window, cudaStream_t stream)
{
  dim3 block (SD_CEN_BX, SD_CEN_BY);
  dim3 grid (sd_cuda_div_up (width, SD_CEN_BX),
      sd_cuda_div_up (height, SD_CEN_BY), 2);
  switch (window) {
    case SD_CENSUS_5X5:
      sd_census_kernel < SD_CENSUS_5X5 > <<< grid, block, 0, stream >>>
          (img, signature, width, height);
      break;
    case SD_CENSUS_CS9X7:
      sd_census_kernel < SD_CENSUS_CS9X7 > <<< grid, block, 0, stream >>>
          (img, signature, width, height);
      break;
    default:
      sd_census_kernel < SD_CENSUS_9X7 > <<< grid, block, 0, stream >>>
          (img, signature, width, height);
      break;
  }
  return cudaGetLastError ();
}
