/* Semi-Global Matching on the GPU: the path aggregation.
 *
 * One warp sweeps one scanline of one direction; the lanes share the
 * disparities (see sd-cuda-sgm.cuh), two per register, so that Hopper's
 * 16x2 add/min instructions update two path cells at once.  The k - 1 and
 * k + 1 neighbours come from the lanes beside (one shuffle each way per
 * register), min over k of the previous cell is a warp reduction.
 *
 * The matching cost is computed where it is used, from the census
 * signatures (or the prefiltered pixels for AD): a stored cost volume would
 * be read once per path.  A disparity that points left of the right image
 * reads the right row's first pixel, as the reference does.
 *
 * Storage.  When every path cost fits in 8 bits (sd_cost_max + P2 <= 255:
 * census windows with the usual penalties), each direction writes its own
 * 8-bit volume and all directions run in one launch, which keeps the GPU
 * full.  Otherwise the directions add into one 16-bit volume, one launch
 * each.  Winner-takes-all (sd-cuda-wta.cu) reads them.
 *
 * Bit-exactness with common/cpu/sgm.c: every value fits in 16 bits (a path
 * cost is at most cost_max + P2 <= 4350, a sum of 8 at most 34800) and the
 * recurrence is the reference's. */
#include <string.h>

#include "sd-cuda-sgm.cuh"

#define SD_SGM_WARPS 4          /* warps per block */
#define SD_MAX_SEGMENTS 8

enum
{ SD_COST_KIND_CENSUS64, SD_COST_KIND_CENSUS32, SD_COST_KIND_AD };

typedef struct
{
  const uint64_t *census_left, *census_right;
  const uint8_t *image_left, *image_right;
  const uint8_t *guide;
  uint8_t *volume;
  const uint8_t *cost;          /* the cost volume, for SD_SRC_VOLUME */
  uint8_t *volume_cost;         /* the same, written by its kernel */
  size_t path_stride;           /* bytes from one 8-bit path volume to the next */
  int width, height, D, dmin, dp;       /* dp: disparity slots per pixel */
  int cost_kind;
  int p1, p2, adaptive;
  int first;                    /* 16-bit mode: this direction writes the sum */
  /* the directions of one launch: blocks [block0[s], block0[s + 1]) sweep
   * direction dir[s] and write volume slot s */
  int n_segments;
  int dir[SD_MAX_SEGMENTS];
  int block0[SD_MAX_SEGMENTS + 1];
} SdSgmArgs;

/* The reference's order (common/cpu/sgm.c): the first four are the 4-path
 * set. */
__host__ __device__ static inline void
sd_direction (int dir, int *dx, int *dy)
{
  const int dxs[8] = { 1, -1, 0, 0, 1, -1, 1, -1 };
  const int dys[8] = { 0, 0, 1, -1, 1, 1, -1, -1 };
  *dx = dxs[dir];
  *dy = dys[dir];
}

static int
sd_direction_lines (int dir, int w, int h)
{
  int dx, dy;
  sd_direction (dir, &dx, &dy);
  if (dy == 0)
    return h;
  if (dx == 0)
    return w;
  return w + h - 1;
}

/* ---- the matching cost -------------------------------------------------- */

/* Where the matching cost comes from (a template parameter). */
enum
{
  SD_SRC_CENSUS64,              /* 9x7 census, computed here */
  SD_SRC_GENERIC,               /* 32-bit census or AD (a.cost_kind), here */
  SD_SRC_VOLUME,                /* an 8-bit cost volume (sd_cost_volume_kernel) */
};

/* What one path step reads besides the path state: the left pixel's census
 * (or value), the right image at x - d for the lane's disparities (or the
 * lane's cells of the cost volume), the guide pixel. */
template < int DPL > struct SdCostIn
{
  uint64_t left;
  uint64_t right[DPL];
  SdBytes < DPL > cost;
  uint32_t guide;
};

/* A read-only load with a constant offset in the instruction. */
template < int OFF > __device__ __forceinline__ uint64_t
sd_ld64 (const uint64_t * p)
{
  uint64_t v;
  asm ("ld.global.nc.u64 %0, [%1+%2];":"=l" (v):"l" (p), "n" (OFF));
  return v;
}

template < int DPL, int J > struct SdRightLoads
{
  static __device__ __forceinline__ void run (uint64_t * r,
      const uint64_t * p)
  {
    SdRightLoads < DPL, J - 1 >::run (r, p);
    r[J - 1] = sd_ld64 < -256 * (J - 1) > (p);
  }
};

template < int DPL > struct SdRightLoads <DPL, 0 >
{
  static __device__ __forceinline__ void run (uint64_t *, const uint64_t *)
  {
  }
};

/* The cost inputs of pixel (x, pix = y * width + x).  Slot j matches right
 * pixel x - dmin - lane - 32 j, or the row's first pixel when that is left
 * of the image (the reference's edge rule). */
template < int DPL, int SRC > __device__ __forceinline__ void
sd_cost_load (const SdSgmArgs & a, SdCostIn < DPL > &in, int x, size_t pix,
    int lane)
{
  in.guide = a.guide[pix];
  if (SRC == SD_SRC_VOLUME) {
    in.cost = sd_load_u8 < DPL > (a.cost + pix * a.dp + lane * DPL);
    return;
  }
  const int xr0 = x - a.dmin - lane;
  /* away from the left edge (the common case, uniform over the warp)
   * nothing is clamped and the slots' addresses differ by constants */
  const bool all_in = x - a.dmin - (32 * DPL - 1) >= 0;
  if (SRC == SD_SRC_CENSUS64 || a.cost_kind != SD_COST_KIND_AD) {
    in.left = a.census_left[pix];
    if (all_in) {
      SdRightLoads < DPL, DPL >::run (in.right,
          a.census_right + pix - a.dmin - lane);
    } else {
      const uint64_t *r = a.census_right + (pix - x);
#pragma unroll
      for (int j = 0; j < DPL; j++)
        in.right[j] = r[max (xr0 - 32 * j, 0)];
    }
  } else {
    in.left = a.image_left[pix];
    const uint8_t *r = a.image_right + (pix - x);
#pragma unroll
    for (int j = 0; j < DPL; j++)
      in.right[j] = r[max (xr0 - 32 * j, 0)];
  }
}

template < int DPL, int SRC > __device__ __forceinline__ void
sd_cost_compute (const SdSgmArgs & a, const SdCostIn < DPL > &in,
    uint32_t (&c)[(DPL + 1) / 2])
{
  if (SRC == SD_SRC_VOLUME) {
#pragma unroll
    for (int p = 0; p < (DPL + 1) / 2; p++)
      c[p] = 0;
    sd_add_u8 < DPL > (c, in.cost);
    return;
  }
  uint32_t v[DPL + 1];
  if (SRC == SD_SRC_CENSUS64) {
#pragma unroll
    for (int j = 0; j < DPL; j++) {
      const uint64_t d = in.left ^ in.right[j];
      v[j] = __popc ((uint32_t) d) + __popc ((uint32_t) (d >> 32));
    }
  } else if (a.cost_kind == SD_COST_KIND_AD) {
#pragma unroll
    for (int j = 0; j < DPL; j++)
      v[j] = (uint32_t) abs ((int) in.left - (int) in.right[j]);
  } else if (a.cost_kind == SD_COST_KIND_CENSUS64) {
#pragma unroll
    for (int j = 0; j < DPL; j++) {
      const uint64_t d = in.left ^ in.right[j];
      v[j] = __popc ((uint32_t) d) + __popc ((uint32_t) (d >> 32));
    }
  } else {
#pragma unroll
    for (int j = 0; j < DPL; j++)
      v[j] = __popc ((uint32_t) (in.left ^ in.right[j]));
  }
  v[DPL] = 0;
#pragma unroll
  for (int p = 0; p < (DPL + 1) / 2; p++)
    c[p] = __byte_perm (v[2 * p], v[2 * p + 1], 0x5410);
}

/* The cost volume, for SD_SRC_VOLUME: one warp per pixel, the path
 * volumes' layout.  Costs are computed once instead of once per path, for
 * one more byte per cell and path moved. */
template < int DPL, int SRC > __global__ void
__launch_bounds__ (128)
sd_cost_volume_kernel (const SdSgmArgs a)
{
  const int lane = threadIdx.x & 31;
  const int warp = blockIdx.x * 4 + (threadIdx.x >> 5);
  const int per_warp = 16;
  const int w = a.width;
  const int row_warps = (w + per_warp - 1) / per_warp;
  const int y = warp / row_warps;
  if (y >= a.height)
    return;
  const int x0 = (warp % row_warps) * per_warp;
  const int x1 = min (x0 + per_warp, w);
  for (int x = x0; x < x1; x++) {
    const size_t pix = (size_t) y * w + x;
    SdCostIn < DPL > in;
    sd_cost_load < DPL, SRC > (a, in, x, pix, lane);
    uint32_t c[(DPL + 1) / 2];
    sd_cost_compute < DPL, SRC > (a, in, c);
    sd_store_u8 < DPL > (a.volume_cost + pix * a.dp + lane * DPL, c);
  }
}

/* ---- one path step ------------------------------------------------------- */

/* L[k] = C[k] + min(P[k], P[k-1] + P1, P[k+1] + P1, minP + P2) - minP, on
 * the lane's packed registers; returns the new warp-wide minimum. */
template < int DPL > __device__ __forceinline__ uint32_t
sd_path_step (uint32_t (&P)[(DPL + 1) / 2], uint32_t min_prev,
    const uint32_t (&c)[(DPL + 1) / 2], uint32_t p1x2, uint32_t p2,
    const uint32_t (&keep)[(DPL + 1) / 2], int lane)
{
  const int NP = (DPL + 1) / 2;
  uint32_t rm[NP], rp[NP];
#pragma unroll
  for (int p = 0; p < NP; p++) {
    rm[p] = __shfl_sync (SD_FULL_MASK, P[p], (lane + 31) & 31);
    rp[p] = __shfl_sync (SD_FULL_MASK, P[p], (lane + 1) & 31);
  }
  const uint32_t mp2 = (min_prev + p2) * 0x10001u;
  const uint32_t negm = ((0x10000u - min_prev) & 0xffffu) * 0x10001u;
  uint32_t lmin = SD_FULL_MASK;
#pragma unroll
  for (int p = 0; p < NP; p++) {
    /* lane 0's k - 1 and lane 31's k + 1 live in the other register of the
     * pair: k = l + 64 p (low half) and l + 64 p + 32 (high half) */
    const uint32_t km1 = lane == 0 ?
        __byte_perm (p > 0 ? rm[p - 1] : SD_SENT2, rm[p], 0x5432) : rm[p];
    const uint32_t kp1 = lane == 31 ?
        __byte_perm (rp[p], p + 1 < NP ? rp[p + 1] : SD_SENT2, 0x5432) :
        rp[p];
    uint32_t t = __viaddmin_u16x2 (km1, p1x2, P[p]);
    t = __viaddmin_u16x2 (kp1, p1x2, t);
    t = sd_min16x2 (t, mp2);
    /* t >= min_prev, so the 16-bit wrap of t + (C - min_prev) is exact */
    uint32_t L = sd_add16x2 (t, sd_add16x2 (c[p], negm));
    L = (L & keep[p]) | (SD_SENT2 & ~keep[p]);
    P[p] = L;
    lmin = sd_min16x2 (lmin, L);
  }
  return sd_warp_min (min (lmin & 0xffff, lmin >> 16));
}

__device__ __forceinline__ uint32_t
sd_penalty2 (const SdSgmArgs & a, uint32_t g, uint32_t g_prev)
{
  if (!a.adaptive)
    return a.p2;
  const int step = abs ((int) g - (int) g_prev);
  if (step == 0)
    return a.p2;
  return max (a.p1, a.p2 / step);
}

template < int DPL > __device__ __forceinline__ void
sd_lane_masks (int D, int lane, uint32_t (&keep)[(DPL + 1) / 2])
{
#pragma unroll
  for (int p = 0; p < (DPL + 1) / 2; p++) {
    const int k = lane + 64 * p;
    keep[p] = (k < D ? 0xffffu : 0) | (k + 32 < D ? 0xffff0000u : 0);
  }
}

/* ---- the kernel ------------------------------------------------------------ */

template < int DPL, bool U8, int SRC > __global__ void
__launch_bounds__ (32 * SD_SGM_WARPS)
sd_sgm_path_kernel (const SdSgmArgs a)
{
  const int NP = (DPL + 1) / 2;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  int seg = 0;
#pragma unroll
  for (int s = 1; s < SD_MAX_SEGMENTS; s++)
    if (s < a.n_segments && (int) blockIdx.x >= a.block0[s])
      seg = s;
  int dir = 0, block0 = 0;
#pragma unroll
  for (int s = 0; s < SD_MAX_SEGMENTS; s++)
    if (s == seg) {
      dir = a.dir[s];
      block0 = a.block0[s];
    }
  const int line = ((int) blockIdx.x - block0) * SD_SGM_WARPS + warp;
  const int w = a.width, h = a.height;
  int dx, dy;
  sd_direction (dir, &dx, &dy);
  /* where the line enters the image, and its length */
  int x, y, len;
  if (dy == 0) {
    if (line >= h)
      return;
    y = line;
    x = dx > 0 ? 0 : w - 1;
    len = w;
  } else if (dx == 0) {
    if (line >= w)
      return;
    x = line;
    y = dy > 0 ? 0 : h - 1;
    len = h;
  } else {
    if (line >= w + h - 1)
      return;
    if (line < w) {
      x = line;
      y = dy > 0 ? 0 : h - 1;
    } else {
      x = dx > 0 ? 0 : w - 1;
      y = dy > 0 ? line - w + 1 : h - 1 - (line - w + 1);
    }
    len = min (dx > 0 ? w - x : x + 1, dy > 0 ? h - y : y + 1);
  }

  uint32_t keep[NP], P[NP];
  sd_lane_masks < DPL > (a.D, lane, keep);
#pragma unroll
  for (int p = 0; p < NP; p++)
    P[p] = SD_SENT2 & ~keep[p]; /* zeros: the first step gives L = C */
  uint32_t min_prev = 0;
  const uint32_t p1x2 = (uint32_t) a.p1 * 0x10001u;
  const ptrdiff_t step = (ptrdiff_t) dy * w + dx;
  const ptrdiff_t vstep = step * a.dp;
  /* the cells of the pixel being stored */
  uint8_t *vol8 = a.volume + (size_t) seg * a.path_stride +
      ((size_t) y * w + x) * a.dp + lane * DPL;
  uint16_t *vol16 = (uint16_t *) a.volume + ((size_t) y * w + x) * a.dp +
      lane * DPL;

  /* reads go out several pixels ahead (a warp's steps are one dependency
   * chain); lx, lpix: the pixel of the next read, which stops at the end */
  struct In
  {
    SdCostIn < DPL > cost;
    SdHalves < DPL > old;
  };
  int lx = x, loads = 0;
  size_t lpix = (size_t) y * w + x;
  const uint16_t *lold = vol16;
  auto load =[&](In & in) {
    sd_cost_load < DPL, SRC > (a, in.cost, lx, lpix, lane);
    if (!U8 && !a.first)
      in.old = sd_load_u16 < DPL > (lold);
    if (++loads < len) {
      lx += dx;
      lpix += step;
      lold += vstep;
    }
  };
  /* a ring of RING reads in flight: the cost volume comes from device
   * memory (hundreds of cycles), census rows mostly from the caches */
  const int RING = SRC == SD_SRC_VOLUME ? 6 : 2;
  In ring[RING];
#pragma unroll
  for (int r = 0; r < RING; r++)
    load (ring[r]);
  uint32_t g_prev = ring[0].cost.guide;
  auto body =[&](In & in) {
    uint32_t c[NP];
    sd_cost_compute < DPL, SRC > (a, in.cost, c);
    const uint32_t g = in.cost.guide;
    const uint32_t p2 = sd_penalty2 (a, g, g_prev);
    g_prev = g;
    SdHalves < DPL > old = in.old;
    load (in);
    min_prev = sd_path_step < DPL > (P, min_prev, c, p1x2, p2, keep, lane);
    if (U8) {
      sd_store_u8 < DPL > (vol8, P);
      vol8 += vstep;
    } else if (a.first) {
      sd_store_u16 < DPL > (vol16, P);
      vol16 += vstep;
    } else {
      uint32_t s[NP];
#pragma unroll
      for (int p = 0; p < NP; p++)
        s[p] = sd_add16x2 (P[p], old.w[p]);
      sd_store_u16 < DPL > (vol16, s);
      vol16 += vstep;
    }
  };
  for (int i = 0; i < len; i += RING) {
#pragma unroll
    for (int r = 0; r < RING; r++)
      if (i + r < len)
        body (ring[r]);
  }
}

/* ---- launchers ------------------------------------------------------------ */

int
sd_cuda_sgm_uses_8bit (const SdParams * p)
{
  return sd_cost_max (p) + p->p2 <= 255;
}

size_t
sd_cuda_sgm_volume_bytes (const SdParams * p, int width, int height)
{
  const size_t cells = (size_t) width * height * 32 *
      sd_slots_per_lane (p->num_disparities);
  size_t bytes = sd_cuda_sgm_uses_8bit (p) ? cells * p->paths : cells * 2;
  return (bytes + 255) & ~(size_t) 255;
}

size_t
sd_cuda_cost_volume_bytes (const SdParams * p, int width, int height)
{
  const size_t cells = (size_t) width * height * 32 *
      sd_slots_per_lane (p->num_disparities);
  return (cells + 255) & ~(size_t) 255;
}

template < int DPL, int SRC > static void
sd_sgm_launch_src (bool u8, const SdSgmArgs & a, cudaStream_t stream)
{
  const dim3 block (32 * SD_SGM_WARPS);
  const dim3 grid (a.block0[a.n_segments]);
  if (u8)
    sd_sgm_path_kernel < DPL, true, SRC > <<< grid, block, 0, stream >>> (a);
  else
    sd_sgm_path_kernel < DPL, false, SRC > <<< grid, block, 0, stream >>> (a);
}

template < int DPL > static void
sd_sgm_launch (bool u8, int src, const SdSgmArgs & a, cudaStream_t stream)
{
  if (src == SD_SRC_CENSUS64)
    sd_sgm_launch_src < DPL, SD_SRC_CENSUS64 > (u8, a, stream);
  else if (src == SD_SRC_GENERIC)
    sd_sgm_launch_src < DPL, SD_SRC_GENERIC > (u8, a, stream);
  else
    sd_sgm_launch_src < DPL, SD_SRC_VOLUME > (u8, a, stream);
}

template < int DPL > static void
sd_cost_volume_launch (int src, const SdSgmArgs & a, cudaStream_t stream)
{
  const int warps = a.height * ((a.width + 15) / 16);
  const dim3 grid (sd_cuda_div_up (warps, 4)), block (128);
  if (src == SD_SRC_CENSUS64)
    sd_cost_volume_kernel < DPL, SD_SRC_CENSUS64 > <<< grid, block, 0,
        stream >>> (a);
  else
    sd_cost_volume_kernel < DPL, SD_SRC_GENERIC > <<< grid, block, 0,
        stream >>> (a);
}

static void
sd_sgm_dispatch (int dpl, bool u8, int src, const SdSgmArgs & a,
    cudaStream_t stream)
{
  switch (dpl) {
    case 1:
      sd_sgm_launch < 1 > (u8, src, a, stream);
      break;
    case 2:
      sd_sgm_launch < 2 > (u8, src, a, stream);
      break;
    case 4:
      sd_sgm_launch < 4 > (u8, src, a, stream);
      break;
    default:
      sd_sgm_launch < 8 > (u8, src, a, stream);
      break;
  }
}

static void
sd_cost_volume_dispatch (int dpl, int src, const SdSgmArgs & a,
    cudaStream_t stream)
{
  switch (dpl) {
    case 1:
      sd_cost_volume_launch < 1 > (src, a, stream);
      break;
    case 2:
      sd_cost_volume_launch < 2 > (src, a, stream);
      break;
    case 4:
      sd_cost_volume_launch < 4 > (src, a, stream);
      break;
    default:
      sd_cost_volume_launch < 8 > (src, a, stream);
      break;
  }
}

cudaError_t
sd_cuda_sgm (const SdParams * p, const SdCudaSgmBuffers * b,
    const SdCudaDeviceInfo * info, cudaStream_t stream)
{
  (void) info;
  SdSgmArgs a;
  memset (&a, 0, sizeof (a));
  const int w = b->width, h = b->height;
  const int dpl = sd_slots_per_lane (p->num_disparities);
  const bool u8 = sd_cuda_sgm_uses_8bit (p);
  a.census_left = b->census_left;
  a.census_right = b->census_right;
  a.image_left = b->image_left;
  a.image_right = b->image_right;
  a.guide = b->guide;
  a.volume = (uint8_t *) b->volume;
  a.dp = 32 * dpl;
  a.path_stride = (size_t) w * h * a.dp;
  a.width = w;
  a.height = h;
  a.D = p->num_disparities;
  a.dmin = p->min_disparity;
  a.cost_kind = p->cost == SD_COST_AD ? SD_COST_KIND_AD :
      p->census_window == SD_CENSUS_9X7 ? SD_COST_KIND_CENSUS64 :
      SD_COST_KIND_CENSUS32;
  /* where the paths get their costs */
  int src = a.cost_kind == SD_COST_KIND_CENSUS64 ? SD_SRC_CENSUS64 :
      SD_SRC_GENERIC;
  if (b->cost_volume) {
    a.volume_cost = (uint8_t *) b->cost_volume;
    sd_cost_volume_dispatch (dpl, src, a, stream);
    cudaError_t e = cudaGetLastError ();
    if (e != cudaSuccess)
      return e;
    a.cost = a.volume_cost;
    src = SD_SRC_VOLUME;
  }
  a.p1 = p->p1;
  a.p2 = p->p2;
  a.adaptive = p->p2_adaptive;

  /* the horizontal directions have the longest lines: they go first in the
   * grid so that they start early */
  const int order[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
  if (u8) {
    int blocks = 0;
    for (int i = 0; i < p->paths; i++) {
      a.dir[i] = order[i];
      a.block0[i] = blocks;
      blocks += sd_cuda_div_up (sd_direction_lines (order[i], w, h),
          SD_SGM_WARPS);
    }
    a.n_segments = p->paths;
    a.block0[a.n_segments] = blocks;
    sd_sgm_dispatch (dpl, true, src, a, stream);
    return cudaGetLastError ();
  }
  a.n_segments = 1;
  for (int i = 0; i < p->paths; i++) {
    a.dir[0] = order[i];
    a.block0[0] = 0;
    a.block0[1] = sd_cuda_div_up (sd_direction_lines (order[i], w, h),
        SD_SGM_WARPS);
    a.first = i == 0;
    sd_sgm_dispatch (dpl, false, src, a, stream);
    cudaError_t e = cudaGetLastError ();
    if (e != cudaSuccess)
      return e;
  }
  return cudaSuccess;
}
