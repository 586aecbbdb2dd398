/* Semi-Global Matching on the GPU: the six directions that move down or up
 * a row each step, aggregated one row at a time with their running rows in
 * shared memory, so that only their 16-bit sum goes to device memory.
 *
 * Two passes run side by side, one block per vertical strip of each: down
 * (directions (0, 1), (1, 1), (-1, 1)) and up ((0, -1), (1, -1), (-1, -1)).
 * They share one sum: the pass that reaches a row first (down above the
 * middle row, up from it on) stores its three paths' sum there, and the
 * other adds its own to it, once the first pass's block of the same strip
 * says (its flag) that it is past that row.
 * A pixel's three paths come from the row before it (in the pass's order)
 * at x, x - 1 and x + 1, so a strip needs its neighbours' edge columns.  A
 * block computes chunks of CH rows on its strip widened by CH - 1 - j
 * columns on each side at the chunk's row j (a trapezoid: every cell it
 * needs was computed by itself, or by a neighbour at the chunk's start),
 * then publishes its CH edge columns and waits for its neighbours' only at
 * the next chunk's start.  All blocks run at once (a cooperative launch),
 * so that the waits always end.
 *
 * A warp takes one column of a row and all three directions, in the
 * 32-lane layout of sd-cuda-sgm.cuh (more than 128 disparities: with wide
 * frames, where this scheme measured faster than sd-cuda-sgm.cu's lines;
 * sd_cuda_sgm_rows_wanted()).  The row before is
 * held as 8-bit records (a lane's slots contiguous, as in the volumes):
 * the k - 1 and k + 1 neighbours are the bytes of the lanes beside, read
 * from shared memory.  The costs come from the cost volume a few rows
 * ahead (asynchronous copies into a ring of rows); the adaptive P2 from
 * the block's table of it (sd_fill_penalty2).  Bit-exact with the
 * reference: the same recurrence (sd_path_cells) on the same values.
 *
 * In exact bands (CARRY, sd-cuda-enqueue.cu) a pass starts from the
 * records of the row before the band, carried in, instead of zeros, and
 * leaves the path costs of its last row in the carried row out. */
#include <cuda_pipeline.h>
#include <limits.h>
#include <string.h>

#include "sd-cuda-sgm.cuh"

#define SD_ROWS_WARPS 16
#define SD_ROWS_CH 8            /* rows between two halo exchanges */
#define SD_ROWS_RING 4          /* cost rows in shared memory: 2 ahead */
#define SD_ROWS_MIN_STRIP 32
#define SD_ROWS_DP 256          /* cells a pixel: 32 lanes of 8 slots */

typedef struct
{
  const uint8_t *cost;
  const uint8_t *guide;         /* left luma, for the adaptive P2: the
                                 * frame's, rows beside a band included */
  uint16_t *sum;                /* the six directions' 16-bit sum */
  uint8_t *exch;                /* published edge records */
  uint32_t *exch_min;
  int *flags;                   /* per block: chunks done */
  int width, height, D, p1, p2;
  int strip, nstrips;
  /* rows above mid are down's to store first, the others up's; up's
   * chunks end at mid (height - mid is a multiple of CH), so that no chunk
   * of up holds rows of both kinds, which would let the two passes wait
   * for each other */
  int mid;
} SdRowsArgs;

/* With bands (CARRY): each pass's three directions' rows carried in and
 * out (SdSgmCarry, in the order dx = 0, 1, -1; NULL: none).  A parameter
 * of its own: in SdRowsArgs it changed the code nvcc made for whole frames
 * (63 -> 57 registers), beside it not. */
typedef struct
{
  const uint16_t *in[2][3];
  uint16_t *out[2][3];
} SdRowsCarry;

/* The shared memory of a block: records[2][NC][3][DP] (the rows i - 1 and
 * i of each direction), costs[RING][NC][DP], mins[2][NC][4], and with the
 * adaptive P2 its table (SD_GUIDE_STEPS words; dynamic like the rest: a
 * static table made the launcher's request for the most dynamic shared
 * memory fail). */
static size_t
sd_rows_smem (int strip, bool adaptive)
{
  const size_t nc = strip + 2 * SD_ROWS_CH;
  return nc * SD_ROWS_DP * (6 + SD_ROWS_RING) + nc * 2 * 4 * 4 +
      (adaptive ? SD_GUIDE_STEPS * 4 : 0);
}

__device__ __forceinline__ int
sd_ld_acquire (const int *p)
{
  int v;
  asm volatile ("ld.acquire.gpu.global.s32 %0, [%1];":"=r" (v):"l" (p):"memory");
  return v;
}

__device__ __forceinline__ void
sd_st_release (int *p, int v)
{
  asm volatile ("st.release.gpu.global.s32 [%0], %1;"::"l" (p), "r" (v):"memory");
}

/* A lane's eight slots moved one up (slot 0 the sentinel 0xff) or down
 * (slot 7 the sentinel): lane 0's k - 1 are lane 31's slots one up, lane
 * 31's k + 1 lane 0's one down. */
__device__ __forceinline__ SdBytes < 8 > sd_bytes_up (SdBytes < 8 > b)
{
  b.w[1] = __funnelshift_l (b.w[0], b.w[1], 8);
  b.w[0] = b.w[0] << 8 | 0xffu;
  return b;
}

__device__ __forceinline__ SdBytes < 8 > sd_bytes_down (SdBytes < 8 > b)
{
  b.w[0] = __funnelshift_r (b.w[0], b.w[1], 8);
  b.w[1] = b.w[1] >> 8 | 0xff000000u;
  return b;
}

/* The warp's minimum of two packed 16-bit values at once. */
__device__ __forceinline__ uint32_t
sd_warp_min16x2 (uint32_t v)
{
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v = sd_min16x2 (v, __shfl_xor_sync (SD_FULL_MASK, v, o));
  return v;
}

/* ADAPTIVE: the adaptive P2, an instance of its own, so that the constant
 * P2's (the defaults) keeps its code: behind a run-time flag the guide
 * reads and tests made it 8 % slower at 3840x2160/256
 * (docs/performance.md).  Its table is a parameter of its own, as rc is:
 * inside SdRowsArgs it changed the constant P2's registers too. */
template < bool CARRY, bool ADAPTIVE > __global__ void
__launch_bounds__ (32 * SD_ROWS_WARPS)
sd_sgm_rows_kernel (const SdRowsArgs a, const SdRowsCarry rc,
    const SdP2Table p2_table)
{
  const int LANES = 32, DPL = 8, NP = 4, DP = SD_ROWS_DP;
  const int COL = 3 * DP;       /* a column's three records */
  const int CH = SD_ROWS_CH;
  extern __shared__ __align__ (16) uint8_t smem[];
  const int g = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int w = a.width, h = a.height;
  const int pass = blockIdx.x / a.nstrips, strip = blockIdx.x % a.nstrips;
  const int L = strip * a.strip, R = min (w, L + a.strip);
  const int NC = a.strip + 2 * CH;
  const int X0 = L - CH;        /* x of local column 0 */
  /* the image columns a block may touch */
  const int xa = max (0, X0), xb = min (w, X0 + NC);
  uint8_t *rec = smem;
  uint8_t *costs = rec + (size_t) 2 * NC * COL;
  uint32_t *mins = (uint32_t *) (costs + (size_t) SD_ROWS_RING * NC * DP);
  uint32_t *p2_of_step = mins + 2 * NC * 4;
  auto row_y =[&](int i) {
    return pass == 0 ? i : h - 1 - i;
  };
  /* whether the other pass stores row y first */
  auto second =[&](int y) {
    return pass == 0 ? y >= a.mid : y < a.mid;
  };
  /* the other pass's block of this strip */
  const int other = (1 - pass) * a.nstrips + strip;

  uint32_t keep[NP];
  sd_lane_masks < LANES, DPL > (a.D, g, keep);
  /* padded slots are stored as 0xff: never a neighbour's better candidate
   * (every path cost is at most 255) */
  SdBytes < DPL > pad = sd_pack_u8 < DPL > (keep);
  pad.w[0] = ~pad.w[0];
  pad.w[1] = ~pad.w[1];
  const uint32_t p1x2 = (uint32_t) a.p1 * 0x10001u;
  /* this lane's bytes in a record, and those of the lanes beside */
  const int own_at = g * DPL;
  const int lo_at = ((g + 31) & 31) * DPL;
  const int hi_at = ((g + 1) & 31) * DPL;

  /* zero records and minima: what a path's first pixel follows (L = C),
   * at the first row and outside the image, where nothing overwrites
   * them */
  for (int t = threadIdx.x; t < 2 * NC * COL / 16; t += blockDim.x)
    ((uint4 *) rec)[t] = make_uint4 (0, 0, 0, 0);
  for (int t = threadIdx.x; t < 2 * NC * 4; t += blockDim.x)
    mins[t] = 0;
  if constexpr (CARRY) {
    /* the carried rows as the records and minima before row 0 (parity
     * 1), over every column the block may touch */
    __syncthreads ();
    for (int x = xa + warp; x < xb; x += SD_ROWS_WARPS) {
      const size_t at = (size_t) (NC + x - X0);
#pragma unroll
      for (int dir = 0; dir < 3; dir++) {
        const uint16_t *row = rc.in[pass][dir];
        if (!row)
          continue;
        const SdHalves < DPL > v = sd_load_u16 < DPL > (row + (size_t) x * DP +
            own_at);
        SdBytes < DPL > b = sd_pack_u8 < DPL > (v.w);
        b.w[0] |= pad.w[0];
        b.w[1] |= pad.w[1];
        sd_store_bytes < DPL > (rec + at * COL + dir * DP + own_at, b);
        uint32_t m = v.w[0];
#pragma unroll
        for (int p = 1; p < NP; p++)
          m = sd_min16x2 (m, v.w[p]);
        m = sd_warp_min16x2 (m);
        if (g == 0)
          mins[at * 4 + dir] = min (m & 0xffff, m >> 16);
      }
    }
  }

  if constexpr (ADAPTIVE)
    sd_fill_penalty2 (p2_table, p2_of_step);

  /* row i's costs into ring slot i % RING (one commit per row, empty past
   * the last) */
  auto fetch_costs =[&](int i) {
    if (i < h) {
      uint8_t *dst = costs + (size_t) ((i % SD_ROWS_RING) * NC + xa - X0) *
          DP;
      const uint8_t *src = a.cost + ((size_t) row_y (i) * w + xa) * DP;
      const int n16 = (xb - xa) * DP / 16;
      for (int t = threadIdx.x; t < n16; t += blockDim.x)
        __pipeline_memcpy_async (dst + 16 * t, src + 16 * t, 16);
    }
    __pipeline_commit ();
  };
  fetch_costs (0);
  fetch_costs (1);

  const int blk = blockIdx.x;
  /* published columns: [block][side][parity][CH], each COL bytes of
   * records and 4 minima; side 0 holds the columns [L, L + CH), side 1
   * [R - CH, R) */
  auto exch_at =[&](int block, int side, int par) {
    return (((size_t) block * 2 + side) * 2 + par) * CH;
  };
  const int words = COL / 16;   /* 16-byte words of a column's records */

  for (int i = 0; i < h; i++) {
    const int j = i % CH, c = i / CH;
    uint8_t *rec_cur = rec + (size_t) (i & 1) * NC * COL;
    const uint8_t *rec_prv = rec + (size_t) (~i & 1) * NC * COL;
    uint32_t *min_cur = mins + (i & 1) * NC * 4;
    const uint32_t *min_prv = mins + (~i & 1) * NC * 4;
    fetch_costs (i + 2);
    /* the other pass's chunks that hold this chunk's rows it stores first
     * (0: none) */
    int need = 0;
    if (j == 0) {
      const int i_end = min (h, i + CH);
      if (pass == 0) {
        const int y_lo = max (i, a.mid);
        if (y_lo < i_end)
          need = (h - 1 - y_lo) / CH + 1;
      } else {
        const int y_hi = min (h - 1 - i, a.mid - 1);
        if (h - i_end <= y_hi)
          need = y_hi / CH + 1;
      }
    }
    const bool halo = j == 0 && c > 0 && a.nstrips > 1;
    if (halo || need > 0) {
      /* the neighbours' edge columns at row i - 1: the left halo x = L -
       * CH + col is the left neighbour's side 1, the right halo x = R +
       * col the right one's side 0 */
      if (halo && threadIdx.x == 0 && strip > 0)
        while (sd_ld_acquire (a.flags + blk - 1) < c)
          __nanosleep (32);
      if (halo && threadIdx.x == 32 && strip + 1 < a.nstrips)
        while (sd_ld_acquire (a.flags + blk + 1) < c)
          __nanosleep (32);
      if (threadIdx.x == 64)
        while (sd_ld_acquire (a.flags + other) < need)
          __nanosleep (32);
      __syncthreads ();
    }
    if (halo) {
      const int par = (c - 1) & 1;
      for (int t = threadIdx.x; t < 2 * CH * (words + 1); t += blockDim.x) {
        const int side = t / (CH * (words + 1));
        const int col = t / (words + 1) % CH, q = t % (words + 1);
        const int x = side == 0 ? L - CH + col : R + col;
        if (x < 0 || x >= w || (side == 0 ? strip == 0 :
                strip + 1 == a.nstrips))
          continue;
        const size_t e = exch_at (blk + (side == 0 ? -1 : 1), side == 0,
            par) + col;
        const int lc = x - X0;
        if (q < words)
          ((uint4 *) (rec + (size_t) ((~i & 1) * NC + lc) * COL))[q] =
              __ldcg ((const uint4 *) (a.exch + e * COL) + q);
        else
          ((uint4 *) (mins + ((~i & 1) * NC + lc) * 4))[0] =
              __ldcg ((const uint4 *) (a.exch_min + e * 4));
      }
    }
    __pipeline_wait_prior (2);
    __syncthreads ();

    /* the columns of the trapezoid's row j */
    const int x_lo = max (0, L - (CH - 1 - j));
    const int x_hi = min (w, R + (CH - 1 - j));
    const int y = row_y (i);
    const bool adds = second (y);
    const uint8_t *crow = costs + (size_t) (i % SD_ROWS_RING) * NC * DP;
    /* the first pass's sum at column x where this pass adds to it (else
     * zeros), through L2: another SM wrote it.  Read a column ahead: read
     * in the step that adds it, the load went to the step's end (ptxas's
     * schedule), and every column waited for device memory (2560x1440/256
     * 9.16 ms against 8.34 without the shared sum). */
    auto first_at =[&](int x) {
      uint4 v = make_uint4 (0, 0, 0, 0);
      if (adds && x < x_hi && x >= L && x < R)
        v = __ldcg ((const uint4 *) (a.sum + ((size_t) y * w + x) * DP +
                own_at));
      return v;
    };
    uint4 next = first_at (x_lo + warp);
    /* a warp a column */
    for (int x = x_lo + warp; x < x_hi; x += SD_ROWS_WARPS) {
      const int lc = x - X0;
      const bool kept = x >= L && x < R;
      const uint4 first = next;
      next = first_at (x + SD_ROWS_WARPS);
      uint32_t cst[NP];
      sd_unpack_u8 < DPL > (cst, sd_load_u8 < DPL > (crow + lc * DP +
              own_at));
      const uint8_t *src = rec_prv + lc * COL;
      const uint32_t *msrc = min_prv + lc * 4;
      /* the adaptive P2's guide: this pixel's and, per direction, the
       * previous pixel's where the path has one (elsewhere it starts from
       * zero records, whose step gives L = C whatever P2) */
      const int yp = pass == 0 ? y - 1 : y + 1;
      const bool yp_in = (yp >= 0 && yp < h) || (CARRY && i == 0);
      const uint32_t gv = ADAPTIVE ? a.guide[(size_t) y * w + x] : 0;
      uint8_t *dst = rec_cur + lc * COL;
      uint32_t s[NP], m[3];
#pragma unroll
      for (int dir = 0; dir < 3; dir++) {
        /* the path's previous pixel: x, x - 1 or x + 1 */
        const int dx = dir == 0 ? 0 : dir == 1 ? 1 : -1;
        const uint8_t *r = src + (dir - 3 * dx) * DP;
        SdBytes < DPL > lo = sd_load_u8 < DPL > (r + lo_at);
        SdBytes < DPL > hi = sd_load_u8 < DPL > (r + hi_at);
        if (g == 0)
          lo = sd_bytes_up (lo);
        if (g == 31)
          hi = sd_bytes_down (hi);
        uint32_t P[NP], km1[NP], kp1[NP];
        sd_unpack_u8 < DPL > (P, sd_load_u8 < DPL > (r + own_at));
        sd_unpack_u8 < DPL > (km1, lo);
        sd_unpack_u8 < DPL > (kp1, hi);
        uint32_t p2 = a.p2;
        const int xp = x - dx;
        if (ADAPTIVE && yp_in && xp >= 0 && xp < w
            && (!CARRY || i > 0 || rc.in[pass][dir]))
          p2 = sd_step_penalty2 (p2_of_step, gv,
              a.guide[(ptrdiff_t) yp * w + xp]);
        const uint32_t lmin = sd_path_cells < DPL > (P, km1, kp1,
            msrc[dir - 4 * dx], cst, p1x2, p2, keep);
        m[dir] = min (lmin & 0xffff, lmin >> 16);
        if (CARRY && i + 1 == h && kept && rc.out[pass][dir])
          sd_store_u16 < DPL > (rc.out[pass][dir] + (size_t) x * DP + own_at,
              P);
        SdBytes < DPL > out = sd_pack_u8 < DPL > (P);
        out.w[0] |= pad.w[0];
        out.w[1] |= pad.w[1];
        sd_store_bytes < DPL > (dst + dir * DP + own_at, out);
#pragma unroll
        for (int p = 0; p < NP; p++)
          s[p] = dir == 0 ? P[p] : sd_add16x2 (s[p], P[p]);
      }
      const uint32_t m01 = sd_warp_min16x2 (m[0] | m[1] << 16);
      const uint32_t m2 = sd_warp_min16x2 (m[2]);
      if (g == 0)
        *(uint4 *) (min_cur + lc * 4) = make_uint4 (m01 & 0xffff,
            m01 >> 16, m2 & 0xffff, 0);
      if (kept) {
        s[0] = sd_add16x2 (s[0], first.x);
        s[1] = sd_add16x2 (s[1], first.y);
        s[2] = sd_add16x2 (s[2], first.z);
        s[3] = sd_add16x2 (s[3], first.w);
        sd_store_u16 < DPL > (a.sum + ((size_t) y * w + x) * DP + own_at, s);
      }
    }

    if (j == CH - 1 || i + 1 == h) {
      /* the chunk is done: its sums for the other pass, and this row's
       * edge columns for the neighbours' next chunk */
      __syncthreads ();
    }
    if (j == CH - 1 && i + 1 < h && a.nstrips > 1) {
      for (int t = threadIdx.x; t < 2 * CH * (words + 1); t += blockDim.x) {
        const int side = t / (CH * (words + 1));
        const int col = t / (words + 1) % CH, q = t % (words + 1);
        const int x = side == 0 ? L + col : R - CH + col;
        if (x < L || x >= R)
          continue;
        const size_t e = exch_at (blk, side, c & 1) + col;
        const int lc = x - X0;
        if (q < words)
          __stcg ((uint4 *) (a.exch + e * COL) + q,
              ((const uint4 *) (rec_cur + lc * COL))[q]);
        else
          __stcg ((uint4 *) (a.exch_min + e * 4),
              *(const uint4 *) (min_cur + lc * 4));
      }
      __syncthreads ();
    }
    if ((j == CH - 1 || i + 1 == h) && threadIdx.x == 0) {
      __threadfence ();
      sd_st_release (a.flags + blk, c + 1);
    }
  }
  __pipeline_wait_prior (0);
}

/* ---- launcher ------------------------------------------------------------- */

/* Scratch after the volumes: the published columns and the flags, for as
 * many blocks as the narrowest strip gives. */
static size_t
sd_rows_blocks (int width)
{
  return 2 * (size_t) sd_cuda_div_up (width, SD_ROWS_MIN_STRIP);
}

static size_t
sd_rows_exch_columns (int width)
{
  return sd_rows_blocks (width) * 2 * 2 * SD_ROWS_CH;
}

size_t
sd_cuda_sgm_rows_bytes (int width)
{
  const size_t cols = sd_rows_exch_columns (width);
  return cols * 3 * SD_ROWS_DP + cols * 16 + sd_rows_blocks (width) * sizeof (int);
}

/* The kernel's instances: [CARRY][ADAPTIVE]. */
static const void *const sd_rows_kernels[2][2] = {
  {(const void *) sd_sgm_rows_kernel < false, false >,
      (const void *) sd_sgm_rows_kernel < false, true >},
  {(const void *) sd_sgm_rows_kernel < true, false >,
      (const void *) sd_sgm_rows_kernel < true, true >},
};

/* The strip width for a frame width (0: the rows cannot run here): the
 * narrowest, at least SD_ROWS_MIN_STRIP, whose blocks all fit on the device
 * at once (a cooperative launch refuses more).  It asks the runtime
 * about each strip tried: the backend keeps the answer. */
int
sd_cuda_sgm_rows_strip (const SdCudaDeviceInfo * info, int width)
{
  if (!info->cooperative)
    return 0;
  /* the limit is the device's (the same for every pipeline, whatever its
   * strip: no pipeline can lower it under another) */
  for (int k = 0; k < 4; k++)
    if (cudaFuncSetAttribute (sd_rows_kernels[k / 2][k % 2],
            cudaFuncAttributeMaxDynamicSharedMemorySize,
            info->max_smem_optin) != cudaSuccess) {
      /* the path kernel takes the frame: the refusal must not stay behind
       * as the error a later stage's check finds */
      cudaGetLastError ();
      return 0;
    }
  /* the strip must suit every instance: whole frames and bands, either
   * P2 (the frame's choice sets its volumes, whatever the pipeline's
   * settings) */
  for (int strip = SD_ROWS_MIN_STRIP;; strip += 8) {
    int fit = INT_MAX;
    for (int k = 0; k < 4; k++) {
      const size_t smem = sd_rows_smem (strip, k % 2);
      int blocks = 0;
      if (smem > (size_t) info->max_smem_optin)
        return 0;
      if (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&blocks,
              sd_rows_kernels[k / 2][k % 2], 32 * SD_ROWS_WARPS, smem)
          != cudaSuccess) {
        cudaGetLastError ();
        return 0;
      }
      fit = min (fit, blocks);
    }
    if (2 * sd_cuda_div_up (width, strip) <= fit * info->sm_count)
      return strip;
    if (strip >= width)
      return 0;
  }
}

int
sd_cuda_sgm_rows_wanted (const SdParams * p, int width)
{
  /* where they measured faster than the path kernel (H100, 2026-11-26
   * and, with the adaptive P2, 2026-11-27, docs/performance.md): 8-bit
   * paths, more than 128 disparities (the 32-lane layout), frames at least
   * 2560 wide (at 1920 the device time gains 3 % but a pair in host memory
   * takes 1 to 5 % longer).  Not the height: the bands of a frame must all
   * choose as the frame does, whose volumes' size the choice sets */
  return p->paths == 8 && sd_cuda_sgm_uses_8bit (p)
      && p->num_disparities > 128 && width >= 2560;
}

cudaError_t
sd_cuda_sgm_rows (const SdParams * p, const uint8_t * cost,
    const uint8_t * guide, uint16_t * sum, void *scratch, int width,
    int height, int strip, const SdSgmCarry * carry, cudaStream_t stream)
{
  SdRowsArgs a;
  memset (&a, 0, sizeof (a));
  a.cost = cost;
  a.sum = sum;
  a.width = width;
  a.height = height;
  a.D = p->num_disparities;
  a.p1 = p->p1;
  a.p2 = p->p2;
  a.guide = guide;
  a.strip = strip;
  a.nstrips = sd_cuda_div_up (width, a.strip);
  a.mid = height - SD_ROWS_CH * (height / (2 * SD_ROWS_CH));
  const size_t cols = sd_rows_exch_columns (width);
  a.exch = (uint8_t *) scratch;
  a.exch_min = (uint32_t *) (a.exch + cols * 3 * SD_ROWS_DP);
  a.flags = (int *) (a.exch_min + cols * 4);
  cudaError_t e = cudaMemsetAsync (a.flags, 0, sd_rows_blocks (width) *
      sizeof (int), stream);
  if (e != cudaSuccess)
    return e;
  /* the passes' directions dx = 0, 1, -1 as sd-cuda-sgm.cu numbers them */
  static const int dirs[2][3] = { {2, 4, 5}, {3, 6, 7} };
  SdRowsCarry rc;
  memset (&rc, 0, sizeof (rc));
  if (carry) {
    for (int pass = 0; pass < 2; pass++)
      for (int d = 0; d < 3; d++) {
        rc.in[pass][d] = carry->in[dirs[pass][d]];
        rc.out[pass][d] = carry->out[dirs[pass][d]];
      }
  }
  const bool adaptive = sd_params_p2_adaptive (p);
  SdP2Table p2_table;
  sd_p2_table (p, &p2_table);
  void *args[] = { (void *) &a, (void *) &rc, (void *) &p2_table };
  return cudaLaunchCooperativeKernel (sd_rows_kernels[carry != NULL]
      [adaptive], dim3 (2 * a.nstrips), dim3 (32 * SD_ROWS_WARPS), args,
      sd_rows_smem (strip, adaptive), stream);
}
