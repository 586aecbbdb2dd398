/* Semi-Global Matching on the GPU: the matching cost of every pixel and
 * disparity, computed once into an 8-bit volume in the path volumes'
 * layout (sd-cuda-sgm.cuh), which every path direction then reads
 * (sd-cuda-sgm.cu).  Computing the 9x7 census costs in each path instead,
 * or in some of them, measured slower on the H100 (docs/performance.md):
 * two popcounts a cell and a chain of cache reads per step cost more than
 * one byte a cell and path read back.
 *
 * Costs are the reference's (common/cpu/cost.c): the Hamming distance of
 * the census signatures, the absolute difference, or census-ad's blend of
 * the two (sd-cost.h).  A disparity that points left of the right image
 * reads the right row's first pixel, as the reference does. */
#include "sd-cuda-sgm.cuh"
#include "sd-cost.h"

enum
{ SD_COST_KIND_CENSUS64, SD_COST_KIND_CENSUS32, SD_COST_KIND_AD };

/* Where the costs come from (a template parameter): the 9x7 census alone,
 * the common case, or anything else (a.kind, a.blend). */
enum
{
  SD_SRC_CENSUS64,
  SD_SRC_GENERIC,
};

typedef struct
{
  const uint64_t *census_left, *census_right;
  const uint8_t *image_left, *image_right;
  uint8_t *volume;
  int width, height, dmin, dp;  /* dp: disparity slots per pixel */
  int kind;
  int blend, cost_max;          /* census-ad: the census blended with AD */
} SdCostArgs;

/* What one pixel's costs are computed from: the left pixel's census (or
 * value), the right image at x - d for the lane's disparities, and for
 * census-ad the pixels too. */
template < int DPL > struct SdCostIn
{
  uint64_t left;
  uint64_t right[DPL];
  uint32_t px_left, px_right[DPL];
};

/* A read-only load with a constant offset in the instruction. */
template < int OFF > __device__ __forceinline__ uint64_t
sd_ld64 (const uint64_t * p)
{
  uint64_t v;
  asm ("ld.global.nc.u64 %0, [%1+%2];":"=l" (v):"l" (p), "n" (OFF));
  return v;
}

template < int LANES, int J > struct SdRightLoads
{
  static __device__ __forceinline__ void run (uint64_t * r,
      const uint64_t * p)
  {
    SdRightLoads < LANES, J - 1 >::run (r, p);
    r[J - 1] = sd_ld64 < -8 * LANES * (J - 1) > (p);
  }
};

template < int LANES > struct SdRightLoads <LANES, 0 >
{
  static __device__ __forceinline__ void run (uint64_t *, const uint64_t *)
  {
  }
};

/* The cost inputs of pixel (x, pix = y * width + x) for group lane g.  Slot
 * j matches right pixel x - dmin - g - LANES j, or the row's first pixel
 * when that is left of the image (the reference's edge rule). */
template < int LANES, int DPL, int SRC > __device__ __forceinline__ void
sd_cost_load (const SdCostArgs & a, SdCostIn < DPL > &in, int x, size_t pix,
    int g)
{
  const int xr0 = x - a.dmin - g;
  /* away from the left edge (the common case, uniform over the group)
   * nothing is clamped and the slots' addresses differ by constants */
  const bool all_in = x - a.dmin - (LANES * DPL - 1) >= 0;
  if (SRC == SD_SRC_CENSUS64 || a.kind != SD_COST_KIND_AD) {
    in.left = a.census_left[pix];
    if (all_in) {
      SdRightLoads < LANES, DPL >::run (in.right,
          a.census_right + pix - a.dmin - g);
    } else {
      const uint64_t *r = a.census_right + (pix - x);
#pragma unroll
      for (int j = 0; j < DPL; j++)
        in.right[j] = r[max (xr0 - LANES * j, 0)];
    }
    if (SRC == SD_SRC_GENERIC && a.blend) {
      in.px_left = a.image_left[pix];
      if (all_in) {
        /* constant offsets from one address, as the census loads */
        const uint8_t *q = a.image_right + pix - a.dmin - g;
#pragma unroll
        for (int j = 0; j < DPL; j++)
          in.px_right[j] = __ldg (q - LANES * j);
      } else {
        const uint8_t *r = a.image_right + (pix - x);
#pragma unroll
        for (int j = 0; j < DPL; j++)
          in.px_right[j] = r[max (xr0 - LANES * j, 0)];
      }
    }
  } else {
    in.left = a.image_left[pix];
    const uint8_t *r = a.image_right + (pix - x);
#pragma unroll
    for (int j = 0; j < DPL; j++)
      in.right[j] = r[max (xr0 - LANES * j, 0)];
  }
}

/* The lane's costs from its inputs, two to a register as the paths hold
 * them. */
template < int DPL, int SRC > __device__ __forceinline__ void
sd_cost_compute (const SdCostArgs & a, const SdCostIn < DPL > &in,
    uint32_t (&c)[(DPL + 1) / 2])
{
  uint32_t v[DPL + 1];
  if (SRC == SD_SRC_CENSUS64 || a.kind == SD_COST_KIND_CENSUS64) {
#pragma unroll
    for (int j = 0; j < DPL; j++) {
      const uint64_t d = in.left ^ in.right[j];
      v[j] = __popc ((uint32_t) d) + __popc ((uint32_t) (d >> 32));
    }
  } else if (a.kind == SD_COST_KIND_AD) {
#pragma unroll
    for (int j = 0; j < DPL; j++)
      v[j] = (uint32_t) abs ((int) in.left - (int) in.right[j]);
  } else {
#pragma unroll
    for (int j = 0; j < DPL; j++)
      v[j] = __popc ((uint32_t) (in.left ^ in.right[j]));
  }
  if (SRC == SD_SRC_GENERIC && a.blend) {
#pragma unroll
    for (int j = 0; j < DPL; j++)
      v[j] = (uint32_t) sd_cost_census_ad ((int) v[j],
          abs ((int) in.px_left - (int) in.px_right[j]), a.cost_max);
  }
  v[DPL] = 0;
#pragma unroll
  for (int p = 0; p < (DPL + 1) / 2; p++)
    c[p] = __byte_perm (v[2 * p], v[2 * p + 1], 0x5410);
}

/* A group per run of SD_COST_PER_GROUP pixels of a row. */
#define SD_COST_PER_GROUP 16
template < int LANES, int DPL, int SRC > __global__ void
__launch_bounds__ (128)
sd_cost_volume_kernel (const SdCostArgs a)
{
  const int lane = threadIdx.x & 31;
  const int g = lane & (LANES - 1);
  const int group = (blockIdx.x * 4 + (threadIdx.x >> 5)) * (32 / LANES) +
      lane / LANES;
  const int w = a.width;
  const int row_groups = (w + SD_COST_PER_GROUP - 1) / SD_COST_PER_GROUP;
  const int y = group / row_groups;
  if (y >= a.height)
    return;
  const int x0 = (group % row_groups) * SD_COST_PER_GROUP;
  const int x1 = min (x0 + SD_COST_PER_GROUP, w);
  for (int x = x0; x < x1; x++) {
    const size_t pix = (size_t) y * w + x;
    SdCostIn < DPL > in;
    sd_cost_load < LANES, DPL, SRC > (a, in, x, pix, g);
    uint32_t c[(DPL + 1) / 2];
    sd_cost_compute < DPL, SRC > (a, in, c);
    sd_store_u8 < DPL > (a.volume + pix * a.dp + g * DPL, c);
  }
}

/* The kernel for one layout, its costs from src. */
struct SdCostLaunch
{
  const SdCostArgs & a;
  int src;
  cudaStream_t stream;
  template < int LANES, int DPL > void run () const
  {
    const int groups = a.height * ((a.width + SD_COST_PER_GROUP - 1) /
        SD_COST_PER_GROUP);
    const dim3 grid (sd_cuda_div_up (groups, 4 * (32 / LANES))), block (128);
    if (src == SD_SRC_CENSUS64)
      sd_cost_volume_kernel < LANES, DPL, SD_SRC_CENSUS64 > <<< grid, block,
          0, stream >>> (a);
    else
      sd_cost_volume_kernel < LANES, DPL, SD_SRC_GENERIC > <<< grid, block,
          0, stream >>> (a);
  }
};

size_t
sd_cuda_cost_volume_bytes (const SdParams * p, int width, int height)
{
  const size_t cells = (size_t) width * height *
      sd_sgm_cells_per_pixel (p->num_disparities);
  return (cells + 255) & ~(size_t) 255;
}

cudaError_t
sd_cuda_cost_volume (const SdParams * p, const SdCudaSgmBuffers * b,
    cudaStream_t stream)
{
  int lanes, dpl;
  sd_sgm_layout (p->num_disparities, &lanes, &dpl);
  SdCostArgs a;
  a.census_left = b->census_left;
  a.census_right = b->census_right;
  a.image_left = b->image_left;
  a.image_right = b->image_right;
  a.volume = (uint8_t *) b->cost_volume;
  a.width = b->width;
  a.height = b->height;
  a.dmin = p->min_disparity;
  a.dp = lanes * dpl;
  a.kind = p->cost == SD_COST_AD ? SD_COST_KIND_AD :
      p->census_window == SD_CENSUS_9X7 ? SD_COST_KIND_CENSUS64 :
      SD_COST_KIND_CENSUS32;
  a.blend = sd_params_blends_ad (p);
  a.cost_max = sd_cost_max (p);
  const int src = a.kind == SD_COST_KIND_CENSUS64 && !a.blend ?
      SD_SRC_CENSUS64 : SD_SRC_GENERIC;
  sd_sgm_with_layout (p->num_disparities, SdCostLaunch { a, src, stream });
  return cudaGetLastError ();
}
