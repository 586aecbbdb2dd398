/* What the cost volume (sd-cuda-cost-volume.cu), aggregation
 * (sd-cuda-sgm.cu) and winner-takes-all (sd-cuda-wta.cu) kernels share:
 * the layout of the volumes and the packed 16-bit arithmetic.
 *
 * Disparity slots: a group of LANES lanes (16, two groups per warp, or 32)
 * handles one pixel or one scanline; its lane g holds disparity indices
 * k = g + LANES j, j < DPL (slots per lane), two per 32-bit register (pair
 * p holds j = 2p in its low half and j = 2p + 1 in its high half).  Up to
 * 128 disparities take 16 lanes of up to 8 slots, more take 32 lanes of 8:
 * many slots per lane spread a step's fixed costs (loads, shuffles,
 * reductions) over more cells.  In a volume, a pixel has dp = LANES * DPL
 * cells; lane g's DPL cells are contiguous, in slot order, so that a group
 * moves a pixel with one coalesced access. */
#ifndef SD_CUDA_SGM_CUH
#define SD_CUDA_SGM_CUH

#include "sd-cuda-internal.h"

#define SD_FULL_MASK 0xffffffffu
#define SD_SENT 0x7000u         /* padded disparity slots: never a minimum */
#define SD_SENT2 0x70007000u

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

__device__ __forceinline__ uint32_t
sd_warp_max (uint32_t v)
{
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync (SD_FULL_MASK, v);
#else
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v = max (v, __shfl_xor_sync (SD_FULL_MASK, v, o));
  return v;
#endif
}

/* The lanes of this lane's group, and a minimum over them. */
template < int LANES > __device__ __forceinline__ uint32_t
sd_group_mask (int lane)
{
  return LANES == 32 ? SD_FULL_MASK : 0xffffu << (lane & 16);
}

template < int LANES > __device__ __forceinline__ uint32_t
sd_group_min (uint32_t v, uint32_t mask)
{
  if constexpr (LANES == 32) {
    return sd_warp_min (v);
  } else {
#pragma unroll
    for (int o = LANES / 2; o > 0; o >>= 1)
      v = min (v, __shfl_xor_sync (mask, v, o, LANES));
    return v;
  }
}

/* The minimum over this lane's group where the whole warp makes the call
 * (the path steps): from sm_80 two warp-wide reductions, each with the
 * other group's lanes neutral, in place of four dependent shuffle levels. */
template < int LANES > __device__ __forceinline__ uint32_t
sd_group_min_converged (uint32_t v)
{
#if __CUDA_ARCH__ >= 800
  if constexpr (LANES == 16) {
    const bool high = threadIdx.x & 16;
    const uint32_t low_min = __reduce_min_sync (SD_FULL_MASK,
        high ? SD_FULL_MASK : v);
    const uint32_t high_min = __reduce_min_sync (SD_FULL_MASK,
        high ? v : SD_FULL_MASK);
    return high ? high_min : low_min;
  }
#endif
  return sd_group_min < LANES > (v, SD_FULL_MASK);
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

/* ---- the adaptive P2 ------------------------------------------------------ */

/* The P2 of every intensity step between two 8-bit guide values, from
 * the reference's sd_cpu_penalty2 on the host (the formula has one home),
 * handed to the kernels in their arguments.  Looked up, a step's P2 costs
 * a load where the division took about 30 instructions, a quarter of the
 * path kernel's step (9 % of the frame at 640x480/128,
 * docs/performance.md). */
typedef struct
{
  uint32_t of_step[SD_GUIDE_STEPS];
} SdP2Table;

/* Zeros where the P2 is constant: no kernel reads the table then, and a
 * launch does not pay the reference's 256 divisions for it. */
static inline void
sd_p2_table (const SdParams * p, SdP2Table * t)
{
  const bool adaptive = sd_params_p2_adaptive (p);
  for (int s = 0; s < SD_GUIDE_STEPS; s++)
    t->of_step[s] = adaptive ? (uint32_t) sd_cpu_penalty2 (p, s) : 0;
}

/* The table into the block's shared memory, where the steps' lookups at
 * scattered indices are cheap (in the arguments they would serialize).
 * Every thread of the block calls it. */
__device__ __forceinline__ void
sd_fill_penalty2 (const SdP2Table & t, uint32_t * p2_of_step)
{
  for (int s = threadIdx.x; s < SD_GUIDE_STEPS; s += blockDim.x)
    p2_of_step[s] = t.of_step[s];
  __syncthreads ();
}

/* The P2 of the step from guide value g_prev to g. */
__device__ __forceinline__ uint32_t
sd_step_penalty2 (const uint32_t * p2_of_step, uint32_t g, uint32_t g_prev)
{
  return p2_of_step[abs ((int) g - (int) g_prev)];
}

/* ---- the path recurrence ----------------------------------------------- */

/* L[k] = C[k] + min(P[k], P[k-1] + P1, P[k+1] + P1, minP + P2) - minP on a
 * lane's packed registers, P[k -+ 1] given in km1 and kp1; P becomes L
 * (padded slots, keep 0, the sentinel).  Returns the lane's minimum, packed
 * (the low and high halves' own). */
template < int DPL > __device__ __forceinline__ uint32_t
sd_path_cells (uint32_t (&P)[(DPL + 1) / 2],
    const uint32_t (&km1)[(DPL + 1) / 2], const uint32_t (&kp1)[(DPL + 1) / 2],
    uint32_t min_prev, const uint32_t (&c)[(DPL + 1) / 2], uint32_t p1x2,
    uint32_t p2, const uint32_t (&keep)[(DPL + 1) / 2])
{
  const uint32_t mp2 = (min_prev + p2) * 0x10001u;
  const uint32_t negm = ((0x10000u - min_prev) & 0xffffu) * 0x10001u;
  uint32_t lmin = SD_FULL_MASK;
#pragma unroll
  for (int p = 0; p < (DPL + 1) / 2; p++) {
    uint32_t t = __viaddmin_u16x2 (km1[p], p1x2, P[p]);
    t = __viaddmin_u16x2 (kp1[p], p1x2, t);
    t = sd_min16x2 (t, mp2);
    /* t >= min_prev, so the 16-bit wrap of t + (C - min_prev) is exact */
    uint32_t L = sd_add16x2 (t, sd_add16x2 (c[p], negm));
    L = (L & keep[p]) | (SD_SENT2 & ~keep[p]);
    P[p] = L;
    lmin = sd_min16x2 (lmin, L);
  }
  return lmin;
}

template < int LANES, int DPL > __device__ __forceinline__ void
sd_lane_masks (int D, int g, uint32_t (&keep)[(DPL + 1) / 2])
{
#pragma unroll
  for (int p = 0; p < (DPL + 1) / 2; p++) {
    const int k = g + 2 * LANES * p;
    keep[p] = (k < D ? 0xffffu : 0) | (k + LANES < D ? 0xffff0000u : 0);
  }
}

/* ---- volume access ------------------------------------------------------- */

template < int DPL > struct SdBytes
{
  uint32_t w[(DPL + 3) / 4];
};

/* The low bytes of the packed registers, in slot order. */
template < int DPL > __device__ __forceinline__ SdBytes < DPL >
sd_pack_u8 (const uint32_t (&L)[(DPL + 1) / 2])
{
  SdBytes < DPL > b;
  if constexpr (DPL == 1) {
    b.w[0] = L[0];
  } else if constexpr (DPL == 2) {
    b.w[0] = __byte_perm (L[0], 0, 0x0020);
  } else {
#pragma unroll
    for (int q = 0; q < DPL / 4; q++)
      b.w[q] = __byte_perm (L[2 * q], L[2 * q + 1], 0x6420);
  }
  return b;
}

/* A store and a load, with the streaming hint (evict first: st.global.cs,
 * ld.global.cs) where STREAM: for the path volumes, written by a sweep and
 * read once by winner-takes-all after all of them, so that they leave the
 * L2 to what is read again. */
template < bool STREAM, typename T > __device__ __forceinline__ void
sd_st (T * p, T v)
{
  if constexpr (STREAM)
    __stcs (p, v);
  else
    *p = v;
}

template < bool STREAM, typename T > __device__ __forceinline__ T
sd_ld (const T * p)
{
  if constexpr (STREAM)
    return __ldcs (p);
  else
    return *p;
}

/* A lane's DPL cells of one pixel are contiguous, slot order: 8-bit DPL
 * bytes, 16-bit DPL halves (= the packed registers as they are). */
template < int DPL, bool STREAM = false > __device__ __forceinline__ void
sd_store_bytes (uint8_t * p, const SdBytes < DPL > &b)
{
  if constexpr (DPL == 1) {
    sd_st < STREAM > (p, (uint8_t) b.w[0]);
  } else if constexpr (DPL == 2) {
    sd_st < STREAM > ((uint16_t *) p, (uint16_t) b.w[0]);
  } else if constexpr (DPL == 4) {
    sd_st < STREAM > ((uint32_t *) p, b.w[0]);
  } else if constexpr (DPL == 8) {
    sd_st < STREAM > ((uint2 *) p, make_uint2 (b.w[0], b.w[1]));
  } else {
    sd_st < STREAM > ((uint4 *) p, make_uint4 (b.w[0], b.w[1], b.w[2],
            b.w[3]));
  }
}

template < int DPL, bool STREAM = false > __device__ __forceinline__ void
sd_store_u8 (uint8_t * p, const uint32_t (&L)[(DPL + 1) / 2])
{
  sd_store_bytes < DPL, STREAM > (p, sd_pack_u8 < DPL > (L));
}

template < int DPL, bool STREAM = false > __device__ __forceinline__
SdBytes < DPL > sd_load_u8 (const uint8_t * p)
{
  SdBytes < DPL > b;
  if constexpr (DPL == 1) {
    b.w[0] = sd_ld < STREAM > (p);
  } else if constexpr (DPL == 2) {
    b.w[0] = sd_ld < STREAM > ((const uint16_t *) p);
  } else if constexpr (DPL == 4) {
    b.w[0] = sd_ld < STREAM > ((const uint32_t *) p);
  } else if constexpr (DPL == 8) {
    const uint2 v = sd_ld < STREAM > ((const uint2 *) p);
    b.w[0] = v.x;
    b.w[1] = v.y;
  } else {
    const uint4 v = sd_ld < STREAM > ((const uint4 *) p);
    b.w[0] = v.x;
    b.w[1] = v.y;
    b.w[2] = v.z;
    b.w[3] = v.w;
  }
  return b;
}

/* Bytes 2p and 2p + 1 as one packed 16-bit register. */
template < int DPL > __device__ __forceinline__ uint32_t
sd_byte_pair (const SdBytes < DPL > &b, int p)
{
  return __byte_perm (b.w[p / 2], 0, p & 1 ? 0x4342 : 0x4140);
}

/* The bytes as the packed 16-bit registers. */
template < int DPL > __device__ __forceinline__ void
sd_unpack_u8 (uint32_t (&s)[(DPL + 1) / 2], const SdBytes < DPL > &b)
{
#pragma unroll
  for (int p = 0; p < (DPL + 1) / 2; p++)
    s[p] = sd_byte_pair (b, p);
}

template < int DPL > __device__ __forceinline__ void
sd_add_u8 (uint32_t (&s)[(DPL + 1) / 2], const SdBytes < DPL > &b)
{
#pragma unroll
  for (int p = 0; p < (DPL + 1) / 2; p++)
    s[p] = sd_add16x2 (s[p], sd_byte_pair (b, p));
}

template < int DPL > struct SdHalves
{
  uint32_t w[(DPL + 1) / 2];
};

template < int DPL > __device__ __forceinline__ SdHalves < DPL >
sd_load_u16 (const uint16_t * p)
{
  SdHalves < DPL > h;
  if constexpr (DPL == 1) {
    h.w[0] = *p;
  } else if constexpr (DPL == 2) {
    h.w[0] = *(const uint32_t *) p;
  } else if constexpr (DPL == 4) {
    const uint2 v = *(const uint2 *) p;
    h.w[0] = v.x;
    h.w[1] = v.y;
  } else {
#pragma unroll
    for (int q = 0; q < DPL / 8; q++) {
      const uint4 v = ((const uint4 *) p)[q];
      h.w[4 * q] = v.x;
      h.w[4 * q + 1] = v.y;
      h.w[4 * q + 2] = v.z;
      h.w[4 * q + 3] = v.w;
    }
  }
  return h;
}

template < int DPL > __device__ __forceinline__ void
sd_store_u16 (uint16_t * p, const uint32_t (&s)[(DPL + 1) / 2])
{
  if constexpr (DPL == 1) {
    *p = (uint16_t) s[0];
  } else if constexpr (DPL == 2) {
    *(uint32_t *) p = s[0];
  } else if constexpr (DPL == 4) {
    *(uint2 *) p = make_uint2 (s[0], s[1]);
  } else {
#pragma unroll
    for (int q = 0; q < DPL / 8; q++)
      ((uint4 *) p)[q] = make_uint4 (s[4 * q], s[4 * q + 1], s[4 * q + 2],
          s[4 * q + 3]);
  }
}

__device__ __forceinline__ int
sd_div_round (int num, int den)
{
  const int q = (abs (num) + den / 2) / den;
  return num >= 0 ? q : -q;
}

/* The layout for D disparities: lanes per group and slots per lane (16
 * lanes of 16 slots above 128 disparities measured no faster than 32 of 8:
 * docs/performance.md, run 20). */
static inline void
sd_sgm_layout (int D, int *lanes, int *dpl)
{
  *lanes = D <= 128 ? 16 : 32;
  *dpl = D <= 16 ? 1 : D <= 32 ? 2 : D <= 64 ? 4 : 8;
}

/* Cells per pixel in the volumes. */
static inline int
sd_sgm_cells_per_pixel (int D)
{
  int lanes, dpl;
  sd_sgm_layout (D, &lanes, &dpl);
  return lanes * dpl;
}

/* Calls f.run < LANES, DPL > () for D's layout: the kernels are templates
 * on it. */
template < typename F > static inline void
sd_sgm_with_layout (int D, const F & f)
{
  int lanes, dpl;
  sd_sgm_layout (D, &lanes, &dpl);
  if (lanes == 32)
    f.template run < 32, 8 > ();
  else if (dpl == 8)
    f.template run < 16, 8 > ();
  else if (dpl == 4)
    f.template run < 16, 4 > ();
  else if (dpl == 2)
    f.template run < 16, 2 > ();
  else
    f.template run < 16, 1 > ();
}

#endif
