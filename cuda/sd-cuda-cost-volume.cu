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
#include "sd-cuda-chain.cuh"
#include "sd-cost.h"

enum
{ SD_COST_KIND_CENSUS64, SD_COST_KIND_CENSUS32, SD_COST_KIND_AD };

typedef struct
{
  const uint64_t *census_left, *census_right;
  const uint8_t *image_left, *image_right;
  uint8_t *volume;
  /* winner-takes-all's keys of the right image, which it lowers with
   * atomicMin, set to all ones (no candidate) here rather than by a
   * memset of their own between the kernels; NULL without the left-right
   * check */
  uint32_t *right_key;
  int width, height, dmin, dp;  /* dp: disparity slots per pixel */
  int kind;
  int blend, cost_max;          /* census-ad: the census blended with AD */
} SdCostArgs;

/* Where the costs come from (a template parameter): the 9x7 census alone,
 * census-ad on it (the defaults), or anything else (a.kind, a.blend: AD,
 * or a 32-bit census with or without AD). */
enum
{
  SD_SRC_CENSUS64,
  SD_SRC_CENSUS64_AD,
  SD_SRC_GENERIC,
};

/* Whether source SRC blends the census with AD. */
template < int SRC > __device__ __forceinline__ bool
sd_cost_blends (const SdCostArgs & a)
{
  return SRC == SD_SRC_CENSUS64_AD || (SRC == SD_SRC_GENERIC && a.blend);
}

/* What a pixel gives its costs: its census (or, for AD, its value) and,
 * for census-ad, its value. */
struct SdCostPixel
{
  uint64_t key;
  uint32_t px;
};

/* Pixel x of a row of one image's census and values, as the costs want
 * them. */
template < int SRC > __device__ __forceinline__ SdCostPixel
sd_cost_pixel (const SdCostArgs & a, const uint64_t * census,
    const uint8_t * image, int x)
{
  SdCostPixel v = { 0, 0 };
  if (SRC != SD_SRC_GENERIC || a.kind != SD_COST_KIND_AD) {
    v.key = __ldg (census + x);
    if (sd_cost_blends < SRC > (a))
      v.px = __ldg (image + x);
  } else {
    v.key = __ldg (image + x);
  }
  return v;
}

/* The cost of matching left pixel l with right pixel r. */
template < int SRC > __device__ __forceinline__ uint32_t
sd_cost_cell (const SdCostArgs & a, const SdCostPixel & l,
    const SdCostPixel & r)
{
  uint32_t v;
  if (SRC != SD_SRC_GENERIC) {
    const uint64_t d = l.key ^ r.key;
    v = __popc ((uint32_t) d) + __popc ((uint32_t) (d >> 32));
  } else if (a.kind == SD_COST_KIND_AD) {
    v = (uint32_t) abs ((int) l.key - (int) r.key);
  } else {
    v = __popc ((uint32_t) (l.key ^ r.key));
  }
  if (sd_cost_blends < SRC > (a))
    v = (uint32_t) sd_cost_census_ad (v, abs ((int) l.px - (int) r.px),
        a.cost_max);
  return v;
}

/* Pixels a group computes, LANES apart: 32 and 64 were no faster at
 * 1920x1080 and 3840x2160 and slower at 640x480 (docs/performance.md). */
#define SD_COST_STEPS 16

/* A group computes SD_COST_STEPS pixels of a row, LANES apart; the
 * groups of a run of LANES * SD_COST_STEPS pixels start at its first
 * LANES pixels.  Lane g's slot j of pixel x matches right pixel
 * x - dmin - g - LANES j (the row's first pixel where that is left of the
 * image, the reference's edge rule), which was its slot j - 1 of pixel
 * x - LANES: so a lane keeps its right pixels in a ring and reads one a
 * step, not DPL (docs/performance.md, "The cost volume's right pixels in
 * a ring"). */
template < int LANES, int DPL, int SRC > __global__ void
__launch_bounds__ (128)
sd_cost_volume_kernel (const SdCostArgs a)
{
  static_assert (SD_COST_STEPS % DPL == 0, "the ring turns whole");
  sd_chain_wait ();
  const int lane = threadIdx.x & 31;
  const int g = lane & (LANES - 1);
  const int group = (blockIdx.x * 4 + (threadIdx.x >> 5)) * (32 / LANES) +
      lane / LANES;
  const int w = a.width;
  const int run = LANES * SD_COST_STEPS;
  const int row_groups = (w + run - 1) / run * LANES;
  const int y = group / row_groups;
  if (y >= a.height)
    return;
  const int in_row = group % row_groups;
  const int x0 = in_row / LANES * run + in_row % LANES;
  const size_t row = (size_t) y * w;
  /* lane g the key of the group's pixel g */
  if (a.right_key && g < SD_COST_STEPS && x0 + LANES * g < w)
    a.right_key[row + x0 + LANES * g] = SD_FULL_MASK;
  const uint64_t *census_left = a.census_left + row;
  const uint64_t *census_right = a.census_right + row;
  const uint8_t *image_left = a.image_left + row;
  const uint8_t *image_right = a.image_right + row;
  const int xr0 = x0 - a.dmin - g;
  auto right =[&](int xr) {
    return sd_cost_pixel < SRC > (a, census_right, image_right, max (xr, 0));
  };
  /* slot j of step s sits at ring[(s - j) mod DPL]: each step's read
   * takes the place of the slot that falls off the end */
  SdCostPixel ring[DPL];
#pragma unroll
  for (int j = 1; j < DPL; j++)
    ring[DPL - j] = right (xr0 - LANES * j);
  uint8_t *out = a.volume + (row + x0) * a.dp + g * DPL;
  for (int i = 0; i < SD_COST_STEPS; i += DPL) {
#pragma unroll
    for (int s = 0; s < DPL; s++) {
      const int x = x0 + LANES * (i + s);
      if (x >= w)
        return;
      ring[s] = right (xr0 + LANES * (i + s));
      const SdCostPixel l = sd_cost_pixel < SRC > (a, census_left,
          image_left, x);
      uint32_t v[DPL + 1];
#pragma unroll
      for (int j = 0; j < DPL; j++)
        v[j] = sd_cost_cell < SRC > (a, l, ring[(s - j + DPL) % DPL]);
      v[DPL] = 0;
      uint32_t c[(DPL + 1) / 2];
#pragma unroll
      for (int p = 0; p < (DPL + 1) / 2; p++)
        c[p] = __byte_perm (v[2 * p], v[2 * p + 1], 0x5410);
      sd_store_u8 < DPL > (out, c);
      out += LANES * a.dp;
    }
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
    const int run = LANES * SD_COST_STEPS;
    const int groups = a.height * ((a.width + run - 1) / run * LANES);
    const dim3 grid (sd_cuda_div_up (groups, 4 * (32 / LANES))), block (128);
    if (src == SD_SRC_CENSUS64)
      sd_cuda_launch_chained (sd_cost_volume_kernel < LANES, DPL,
          SD_SRC_CENSUS64 >, grid, block, 0, stream, a);
    else if (src == SD_SRC_CENSUS64_AD)
      sd_cuda_launch_chained (sd_cost_volume_kernel < LANES, DPL,
          SD_SRC_CENSUS64_AD >, grid, block, 0, stream, a);
    else
      sd_cuda_launch_chained (sd_cost_volume_kernel < LANES, DPL,
          SD_SRC_GENERIC >, grid, block, 0, stream, a);
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
  a.right_key = sd_params_lr_check (p) != SD_LR_CHECK_OFF ? b->right_key :
      NULL;
  a.width = b->width;
  a.height = b->height;
  a.dmin = p->min_disparity;
  a.dp = lanes * dpl;
  a.kind = p->cost == SD_COST_AD ? SD_COST_KIND_AD :
      p->census_window == SD_CENSUS_9X7 ? SD_COST_KIND_CENSUS64 :
      SD_COST_KIND_CENSUS32;
  a.blend = sd_params_blends_ad (p);
  a.cost_max = sd_cost_max (p);
  const int src = a.kind != SD_COST_KIND_CENSUS64 ? SD_SRC_GENERIC :
      a.blend ? SD_SRC_CENSUS64_AD : SD_SRC_CENSUS64;
  sd_sgm_with_layout (p->num_disparities, SdCostLaunch { a, src, stream });
  return cudaGetLastError ();
}
