/* Semi-Global Matching on the GPU: the path aggregation, fused with the
 * winner-takes-all, uniqueness, subpixel and right-image disparity stages.
 *
 * One warp sweeps one scanline of one direction.  The lanes share the
 * disparities: lane l holds disparity indices k = l + 32 j (j < DPL), two
 * of them packed per 32-bit register so that Hopper's 16x2 add/min
 * instructions update two path cells at once.  The k - 1 and k + 1
 * neighbours come from the lanes beside (one shuffle each way per register),
 * and min over k of the previous cell is a warp reduction.
 *
 * The matching cost is computed where it is used, from the census
 * signatures (or the prefiltered pixels for AD): a stored cost volume would
 * be read once per path.
 *
 * Storage.  When every path cost fits in 8 bits (sd_cost_max + P2 <= 255:
 * census windows with the usual penalties), each direction but the last
 * writes its own 8-bit volume, and all of them run in one launch, which
 * keeps the GPU full.  Otherwise the directions add into one 16-bit volume,
 * one launch each.  The last direction (left to right) adds everything up
 * in registers and runs winner-takes-all and the right-image disparity on
 * the spot, so the summed volume is never written.
 *
 * Bit-exactness with common/cpu/sgm.c: every value fits in 16 bits (a path
 * cost is at most cost_max + P2 <= 4350, a sum of 8 at most 34800), the
 * recurrence is the reference's, min ties go to the smaller disparity index
 * as the reference's strict '<' scan does. */
#include <string.h>

#include "sd-cuda-internal.h"

#define SD_FULL_MASK 0xffffffffu
#define SD_SENT 0x7000u         /* padded disparity slots: never a minimum */
#define SD_SENT2 0x70007000u
#define SD_SGM_WARPS 4          /* warps per block */
#define SD_MAX_SEGMENTS 7

enum
{ SD_COST_KIND_CENSUS64, SD_COST_KIND_CENSUS32, SD_COST_KIND_AD };

typedef struct
{
  const uint64_t *census_left, *census_right;
  const uint8_t *image_left, *image_right;
  const uint8_t *guide;
  uint8_t *volume;
  size_t path_stride;           /* bytes from one 8-bit path volume to the next */
  int16_t *disp, *right_disp;
  int width, height, D, dmin, dp;       /* dp: disparity slots per pixel */
  int cost_kind, outside;
  int p1, p2, adaptive;
  int uniqueness, subpixel, lr;
  int first;                    /* 16-bit mode: this direction writes the sum */
  int n_stored;                 /* 8-bit mode: volumes the last direction adds */
  /* the directions of one launch: blocks [block0[s], block0[s + 1]) sweep
   * direction dir[s] and write volume slot s */
  int n_segments;
  int dir[SD_MAX_SEGMENTS];
  int block0[SD_MAX_SEGMENTS + 1];
} SdSgmArgs;

/* The reference's order (common/cpu/sgm.c): the first four are the 4-path
 * set.  Direction 0 (left to right) is always the last one aggregated. */
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

/* ---- packed 16-bit helpers ------------------------------------------- */

__device__ __forceinline__ uint32_t
sd_add16x2 (uint32_t a, uint32_t b)
{
#if __CUDA_ARCH__ >= 900
  uint32_t r;
  asm ("add.u16x2 %0, %1, %2;":"=r" (r):"r" (a), "r" (b));
  return r;
#else
  return __vadd2 (a, b);
#endif
}

__device__ __forceinline__ uint32_t
sd_min16x2 (uint32_t a, uint32_t b)
{
#if __CUDA_ARCH__ >= 900
  uint32_t r;
  asm ("min.u16x2 %0, %1, %2;":"=r" (r):"r" (a), "r" (b));
  return r;
#else
  return __vminu2 (a, b);
#endif
}

__device__ __forceinline__ uint32_t
sd_warp_min (uint32_t v)
{
#if __CUDA_ARCH__ >= 800
  return __reduce_min_sync (SD_FULL_MASK, v);
#else
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v = min (v, __shfl_xor_sync (SD_FULL_MASK, v, o));
  return v;
#endif
}

/* Picks a register by a run-time index with masks, not an array index:
 * nvcc turns "if (i == j) v = r[i]" into local memory. */
__device__ __forceinline__ uint32_t
sd_pick (uint32_t v, uint32_t candidate, bool take)
{
  const uint32_t m = 0u - (uint32_t) take;
  return (v & ~m) | (candidate & m);
}

/* Slot j of a lane's packed registers. */
template < int DPL > __device__ __forceinline__ uint32_t
sd_slot (const uint32_t (&s)[(DPL + 1) / 2], int j)
{
  uint32_t v = 0;
#pragma unroll
  for (int i = 0; i < DPL; i++)
    v = sd_pick (v, i & 1 ? s[i / 2] >> 16 : s[i / 2] & 0xffff, i == j);
  return v;
}

/* ---- the matching cost -------------------------------------------------- */

/* What one path step reads besides the path state: the left pixel's census
 * (or value), the right image at x - d for the lane's disparities, the
 * guide pixel. */
template < int DPL > struct SdCostIn
{
  uint64_t left;
  uint64_t right[DPL];
  uint32_t guide;
};

template < int DPL > __device__ __forceinline__ void
sd_cost_load (const SdSgmArgs & a, SdCostIn < DPL > &in, int x, int y,
    int lane)
{
  const size_t row = (size_t) y * a.width;
  in.guide = a.guide[row + x];
  if (a.cost_kind == SD_COST_KIND_AD) {
    in.left = a.image_left[row + x];
#pragma unroll
    for (int j = 0; j < DPL; j++) {
      const int xr = x - a.dmin - lane - 32 * j;
      in.right[j] = xr >= 0 ? a.image_right[row + xr] : 0;
    }
  } else {
    in.left = a.census_left[row + x];
#pragma unroll
    for (int j = 0; j < DPL; j++) {
      const int xr = x - a.dmin - lane - 32 * j;
      in.right[j] = xr >= 0 ? a.census_right[row + xr] : 0;
    }
  }
}

template < int DPL > __device__ __forceinline__ void
sd_cost_compute (const SdSgmArgs & a, const SdCostIn < DPL > &in, int x,
    int lane, uint32_t (&c)[(DPL + 1) / 2])
{
#pragma unroll
  for (int p = 0; p < (DPL + 1) / 2; p++)
    c[p] = 0;
#pragma unroll
  for (int j = 0; j < DPL; j++) {
    const int xr = x - a.dmin - lane - 32 * j;
    uint32_t v;
    if (xr < 0)
      v = a.outside;
    else if (a.cost_kind == SD_COST_KIND_CENSUS64)
      v = __popcll (in.left ^ in.right[j]);
    else if (a.cost_kind == SD_COST_KIND_CENSUS32)
      v = __popc ((uint32_t) (in.left ^ in.right[j]));
    else
      v = (uint32_t) abs ((int) in.left - (int) in.right[j]);
    c[j / 2] |= j & 1 ? v << 16 : v;
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

/* ---- volume access ------------------------------------------------------- */

/* A lane's DPL cells of one pixel are contiguous, slot order: 8-bit DPL
 * bytes, 16-bit DPL halves (= the packed registers as they are). */
template < int DPL > __device__ __forceinline__ void
sd_store_u8 (uint8_t * p, const uint32_t (&L)[(DPL + 1) / 2])
{
  if (DPL == 1)
    *p = (uint8_t) L[0];
  else if (DPL == 2)
    *(uint16_t *) p = (uint16_t) __byte_perm (L[0], 0, 0x0020);
  else if (DPL == 4)
    *(uint32_t *) p = __byte_perm (L[0], L[1 % ((DPL + 1) / 2)], 0x6420);
  else
    *(uint2 *) p = make_uint2 (__byte_perm (L[0], L[1 % ((DPL + 1) / 2)],
            0x6420), __byte_perm (L[2 % ((DPL + 1) / 2)],
            L[3 % ((DPL + 1) / 2)], 0x6420));
}

template < int DPL > struct SdBytes
{
  uint32_t w[(DPL + 3) / 4];
};

template < int DPL > __device__ __forceinline__ SdBytes < DPL >
sd_load_u8 (const uint8_t * p)
{
  SdBytes < DPL > b;
  if (DPL == 1)
    b.w[0] = *p;
  else if (DPL == 2)
    b.w[0] = *(const uint16_t *) p;
  else if (DPL == 4)
    b.w[0] = *(const uint32_t *) p;
  else {
    const uint2 v = *(const uint2 *) p;
    b.w[0] = v.x;
    b.w[(DPL + 3) / 4 - 1] = v.y;
  }
  return b;
}

template < int DPL > __device__ __forceinline__ void
sd_add_u8 (uint32_t (&s)[(DPL + 1) / 2], const SdBytes < DPL > &b)
{
#pragma unroll
  for (int p = 0; p < (DPL + 1) / 2; p++)
    s[p] = sd_add16x2 (s[p], __byte_perm (b.w[p / 2], 0,
            p & 1 ? 0x4342 : 0x4140));
}

template < int DPL > struct SdHalves
{
  uint32_t w[(DPL + 1) / 2];
};

template < int DPL > __device__ __forceinline__ SdHalves < DPL >
sd_load_u16 (const uint16_t * p)
{
  SdHalves < DPL > h;
  if (DPL == 1)
    h.w[0] = *p;
  else if (DPL == 2)
    h.w[0] = *(const uint32_t *) p;
  else if (DPL == 4) {
    const uint2 v = *(const uint2 *) p;
    h.w[0] = v.x;
    h.w[1 % ((DPL + 1) / 2)] = v.y;
  } else {
    const uint4 v = *(const uint4 *) p;
    h.w[0] = v.x;
    h.w[1 % ((DPL + 1) / 2)] = v.y;
    h.w[2 % ((DPL + 1) / 2)] = v.z;
    h.w[3 % ((DPL + 1) / 2)] = v.w;
  }
  return h;
}

template < int DPL > __device__ __forceinline__ void
sd_store_u16 (uint16_t * p, const uint32_t (&s)[(DPL + 1) / 2])
{
  if (DPL == 1)
    *p = (uint16_t) s[0];
  else if (DPL == 2)
    *(uint32_t *) p = s[0];
  else if (DPL == 4)
    *(uint2 *) p = make_uint2 (s[0], s[1 % ((DPL + 1) / 2)]);
  else
    *(uint4 *) p = make_uint4 (s[0], s[1 % ((DPL + 1) / 2)],
        s[2 % ((DPL + 1) / 2)], s[3 % ((DPL + 1) / 2)]);
}

/* ---- the directions but the last ---------------------------------------- */

template < int DPL, bool U8 > __global__ void
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
  uint8_t *vol8 = a.volume + (size_t) seg * a.path_stride + lane * DPL;
  uint16_t *vol16 = (uint16_t *) a.volume + lane * DPL;

  SdCostIn < DPL > cur, next;
  sd_cost_load < DPL > (a, cur, x, y, lane);
  SdHalves < DPL > old_cur, old_next;
  if (!U8 && !a.first)
    old_cur = sd_load_u16 < DPL > (vol16 + ((size_t) y * w + x) * a.dp);
  uint32_t g_prev = cur.guide;
  for (int i = 0; i < len; i++) {
    const int nx = x + dx, ny = y + dy;
    /* the next step's reads go out before this step's arithmetic */
    if (i + 1 < len) {
      sd_cost_load < DPL > (a, next, nx, ny, lane);
      if (!U8 && !a.first)
        old_next = sd_load_u16 < DPL > (vol16 + ((size_t) ny * w + nx) *
            a.dp);
    }
    uint32_t c[NP];
    sd_cost_compute < DPL > (a, cur, x, lane, c);
    const uint32_t p2 = sd_penalty2 (a, cur.guide, g_prev);
    min_prev = sd_path_step < DPL > (P, min_prev, c, p1x2, p2, keep, lane);
    const size_t pix = (size_t) y * w + x;
    if (U8) {
      sd_store_u8 < DPL > (vol8 + pix * a.dp, P);
    } else if (a.first) {
      sd_store_u16 < DPL > (vol16 + pix * a.dp, P);
    } else {
      uint32_t s[NP];
#pragma unroll
      for (int p = 0; p < NP; p++)
        s[p] = sd_add16x2 (P[p], old_cur.w[p]);
      sd_store_u16 < DPL > (vol16 + pix * a.dp, s);
      old_cur = old_next;
    }
    g_prev = cur.guide;
    cur = next;
    x = nx;
    y = ny;
  }
}

/* ---- the last direction, with winner-takes-all --------------------------- */

__device__ __forceinline__ int
sd_div_round (int num, int den)
{
  return num >= 0 ? (num + den / 2) / den : -((-num + den / 2) / den);
}

template < int DPL, bool U8 > __global__ void
__launch_bounds__ (32 * SD_SGM_WARPS)
sd_sgm_last_kernel (const SdSgmArgs a)
{
  const int NP = (DPL + 1) / 2;
  const int lane = threadIdx.x & 31;
  const int y = blockIdx.x * SD_SGM_WARPS + (threadIdx.x >> 5);
  if (y >= a.height)
    return;
  const int w = a.width, D = a.D, dmin = a.dmin;
  const size_t row = (size_t) y * w;

  uint32_t keep[NP], P[NP];
  sd_lane_masks < DPL > (D, lane, keep);
#pragma unroll
  for (int p = 0; p < NP; p++)
    P[p] = SD_SENT2 & ~keep[p];
  uint32_t min_prev = 0;
  const uint32_t p1x2 = (uint32_t) a.p1 * 0x10001u;
  /* right-image disparity: slot k follows right pixel xr = x - dmin - k,
   * keeping the smallest (sum << 8 | candidate index) seen so far */
  uint32_t rs[DPL];
#pragma unroll
  for (int j = 0; j < DPL; j++)
    rs[j] = SD_FULL_MASK;
  if (a.lr) {
    /* right pixels with no left partner inside the image */
    for (int xr = max (0, w - dmin) + lane; xr < w; xr += 32)
      a.right_disp[row + xr] = SD_DISP_INVALID;
  }

  const uint8_t *vol8 = a.volume + row * a.dp + lane * DPL;
  const uint16_t *vol16 = (const uint16_t *) a.volume + row * a.dp +
      lane * DPL;
  SdCostIn < DPL > cur, next;
  SdBytes < DPL > v8_cur[SD_MAX_SEGMENTS], v8_next[SD_MAX_SEGMENTS];
  SdHalves < DPL > v16_cur, v16_next;
  sd_cost_load < DPL > (a, cur, 0, y, lane);
  if (U8) {
#pragma unroll
    for (int s = 0; s < SD_MAX_SEGMENTS; s++)
      if (s < a.n_stored)
        v8_cur[s] = sd_load_u8 < DPL > (vol8 + s * a.path_stride);
  } else {
    v16_cur = sd_load_u16 < DPL > (vol16);
  }
  uint32_t g_prev = cur.guide;
  int16_t mine = SD_DISP_INVALID;

  for (int x = 0; x < w; x++) {
    if (x + 1 < w) {
      sd_cost_load < DPL > (a, next, x + 1, y, lane);
      const size_t o = (size_t) (x + 1) * a.dp;
      if (U8) {
#pragma unroll
        for (int s = 0; s < SD_MAX_SEGMENTS; s++)
          if (s < a.n_stored)
            v8_next[s] = sd_load_u8 < DPL > (vol8 + s * a.path_stride + o);
      } else {
        v16_next = sd_load_u16 < DPL > (vol16 + o);
      }
    }
    uint32_t c[NP];
    sd_cost_compute < DPL > (a, cur, x, lane, c);
    const uint32_t p2 = sd_penalty2 (a, cur.guide, g_prev);
    min_prev = sd_path_step < DPL > (P, min_prev, c, p1x2, p2, keep, lane);

    /* the sum over all directions */
    uint32_t S[NP];
#pragma unroll
    for (int p = 0; p < NP; p++)
      S[p] = P[p];
    if (U8) {
#pragma unroll
      for (int s = 0; s < SD_MAX_SEGMENTS; s++)
        if (s < a.n_stored)
          sd_add_u8 < DPL > (S, v8_cur[s]);
    } else {
#pragma unroll
      for (int p = 0; p < NP; p++)
        S[p] = sd_add16x2 (S[p], v16_cur.w[p]);
    }

    /* winner takes all: the smallest sum, the smallest index on ties */
    uint32_t key = SD_FULL_MASK;
#pragma unroll
    for (int j = 0; j < DPL; j++) {
      const int k = lane + 32 * j;
      const uint32_t s = j & 1 ? S[j / 2] >> 16 : S[j / 2] & 0xffff;
      if (k < D)
        key = min (key, s << 8 | (uint32_t) k);
    }
    int value = SD_DISP_INVALID;
    if (x >= dmin) {
      key = sd_warp_min (key);
      const int best = key & 0xff;
      const int best_sum = key >> 8;
      bool unique = true;
      if (a.uniqueness > 0) {
        uint32_t m2 = SD_FULL_MASK;
#pragma unroll
        for (int j = 0; j < DPL; j++) {
          const int k = lane + 32 * j;
          const uint32_t s = j & 1 ? S[j / 2] >> 16 : S[j / 2] & 0xffff;
          if (k < D && abs (k - best) > 1)
            m2 = min (m2, s);
        }
        m2 = sd_warp_min (m2);
        unique = !(m2 != SD_FULL_MASK && (int) m2 * (100 - a.uniqueness) <
            best_sum * 100);
      }
      if (unique) {
        value = (dmin + best) * SD_SUBPIXEL_SCALE;
        if (a.subpixel && best > 0 && best < D - 1) {
          const int kl = best - 1, kr = best + 1;
          const int sl = __shfl_sync (SD_FULL_MASK,
              sd_slot < DPL > (S, kl >> 5), kl & 31);
          const int sr = __shfl_sync (SD_FULL_MASK,
              sd_slot < DPL > (S, kr >> 5), kr & 31);
          int denom = sl + sr - 2 * best_sum;
          if (denom < 1)
            denom = 1;
          value += sd_div_round ((sl - sr) * SD_SUBPIXEL_SCALE, 2 * denom);
        }
      }
    }
    /* lane x % 32 keeps the value; 32 of them go out in one store */
    if ((x & 31) == lane)
      mine = (int16_t) value;
    if ((x & 31) == 31 || x == w - 1) {
      const int x0 = x & ~31;
      if (lane <= (x & 31))
        a.disp[row + x0 + lane] = mine;
    }

    if (a.lr) {
      uint32_t rot[DPL];
#pragma unroll
      for (int j = 0; j < DPL; j++)
        rot[j] = __shfl_sync (SD_FULL_MASK, rs[j], (lane + 31) & 31);
#pragma unroll
      for (int j = 0; j < DPL; j++) {
        const int k = lane + 32 * j;
        const uint32_t s = j & 1 ? S[j / 2] >> 16 : S[j / 2] & 0xffff;
        const uint32_t kk = k < D ? (s << 8 | (uint32_t) k) : SD_FULL_MASK;
        const uint32_t before = lane == 0 ? (j > 0 ? rot[j - 1 + (j == 0)] :
            SD_FULL_MASK) : rot[j];
        rs[j] = k == 0 ? kk : min (before, kk);
      }
      /* the right pixel whose last candidate this was */
      const int xr = x - dmin - (D - 1);
      if (xr >= 0 && lane == ((D - 1) & 31)) {
        uint32_t v = SD_FULL_MASK;
#pragma unroll
        for (int j = 0; j < DPL; j++)
          v = sd_pick (v, rs[j], j == (D - 1) >> 5);
        a.right_disp[row + xr] = (int16_t) (dmin + (v & 0xff));
      }
    }

    g_prev = cur.guide;
    cur = next;
    if (U8) {
#pragma unroll
      for (int s = 0; s < SD_MAX_SEGMENTS; s++)
        v8_cur[s] = v8_next[s];
    } else {
      v16_cur = v16_next;
    }
  }
  if (a.lr) {
    /* the row ended before these right pixels saw all D candidates */
#pragma unroll
    for (int j = 0; j < DPL; j++) {
      const int k = lane + 32 * j;
      const int xr = w - 1 - dmin - k;
      if (k < D - 1 && xr >= 0)
        a.right_disp[row + xr] = (int16_t) (dmin + (rs[j] & 0xff));
    }
  }
}

/* ---- launchers ------------------------------------------------------------ */

static int
sd_slots_per_lane (int D)
{
  return D <= 32 ? 1 : D <= 64 ? 2 : D <= 128 ? 4 : 8;
}

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
  size_t bytes = sd_cuda_sgm_uses_8bit (p) ? cells * (p->paths - 1) :
      cells * 2;
  return (bytes + 255) & ~(size_t) 255;
}

template < int DPL, bool U8 > static void
sd_sgm_launch_paths (const SdSgmArgs & a, cudaStream_t stream)
{
  sd_sgm_path_kernel < DPL, U8 > <<< a.block0[a.n_segments],
      32 * SD_SGM_WARPS, 0, stream >>> (a);
}

template < int DPL, bool U8 > static void
sd_sgm_launch_last (const SdSgmArgs & a, cudaStream_t stream)
{
  sd_sgm_last_kernel < DPL, U8 > <<< sd_cuda_div_up (a.height,
      SD_SGM_WARPS), 32 * SD_SGM_WARPS, 0, stream >>> (a);
}

template < bool U8 > static void
sd_sgm_dispatch (int dpl, bool last, const SdSgmArgs & a,
    cudaStream_t stream)
{
  switch (dpl) {
    case 1:
      last ? sd_sgm_launch_last < 1, U8 > (a, stream) :
          sd_sgm_launch_paths < 1, U8 > (a, stream);
      break;
    case 2:
      last ? sd_sgm_launch_last < 2, U8 > (a, stream) :
          sd_sgm_launch_paths < 2, U8 > (a, stream);
      break;
    case 4:
      last ? sd_sgm_launch_last < 4, U8 > (a, stream) :
          sd_sgm_launch_paths < 4, U8 > (a, stream);
      break;
    default:
      last ? sd_sgm_launch_last < 8, U8 > (a, stream) :
          sd_sgm_launch_paths < 8, U8 > (a, stream);
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
  a.disp = b->disp;
  a.right_disp = b->right_disp;
  a.width = w;
  a.height = h;
  a.D = p->num_disparities;
  a.dmin = p->min_disparity;
  a.cost_kind = p->cost == SD_COST_AD ? SD_COST_KIND_AD :
      p->census_window == SD_CENSUS_9X7 ? SD_COST_KIND_CENSUS64 :
      SD_COST_KIND_CENSUS32;
  a.outside = sd_cost_max (p) / 2;
  a.p1 = p->p1;
  a.p2 = p->p2;
  a.adaptive = p->p2_adaptive;
  a.uniqueness = p->uniqueness;
  a.subpixel = p->subpixel;
  a.lr = p->lr_check != SD_LR_CHECK_OFF;

  /* directions 1 .. paths-1 first; their longest lines go first in the
   * grid so that they start early */
  const int order[7] = { 1, 2, 3, 4, 5, 6, 7 };
  if (u8) {
    int blocks = 0;
    for (int i = 0; i < p->paths - 1; i++) {
      a.dir[i] = order[i];
      a.block0[i] = blocks;
      blocks += sd_cuda_div_up (sd_direction_lines (order[i], w, h),
          SD_SGM_WARPS);
    }
    a.n_segments = p->paths - 1;
    a.block0[a.n_segments] = blocks;
    a.n_stored = p->paths - 1;
    if (a.n_segments > 0)
      sd_sgm_dispatch < true > (dpl, false, a, stream);
    cudaError_t e = cudaGetLastError ();
    if (e != cudaSuccess)
      return e;
    a.n_segments = 0;
    sd_sgm_dispatch < true > (dpl, true, a, stream);
  } else {
    a.n_segments = 1;
    for (int i = 0; i < p->paths - 1; i++) {
      a.dir[0] = order[i];
      a.block0[0] = 0;
      a.block0[1] = sd_cuda_div_up (sd_direction_lines (order[i], w, h),
          SD_SGM_WARPS);
      a.first = i == 0;
      sd_sgm_dispatch < false > (dpl, false, a, stream);
      cudaError_t e = cudaGetLastError ();
      if (e != cudaSuccess)
        return e;
    }
    if (p->paths == 1)
      return cudaErrorInvalidValue;
    sd_sgm_dispatch < false > (dpl, true, a, stream);
  }
  return cudaGetLastError ();
}
