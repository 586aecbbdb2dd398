/* Semi-Global Matching on the GPU: the path aggregation.
 *
 * A group of 16 or 32 lanes sweeps one scanline of one direction; the lanes
 * share the disparities (see sd-cuda-sgm.cuh), two per register, so that
 * Hopper's 16x2 add/min instructions update two path cells at once.  The
 * k - 1 and k + 1 neighbours come from the lanes beside (one shuffle each
 * way per register), min over k of the previous cell is a group
 * reduction.  The matching costs come from the 8-bit cost volume
 * (sd-cuda-cost-volume.cu), in the same layout.
 *
 * Storage.  When every path cost fits in 8 bits (sd_cost_max + P2 <= 255:
 * census windows with the usual penalties), each direction writes its own
 * 8-bit volume and all directions run in one launch, which keeps the GPU
 * full.  Otherwise the directions add into one 16-bit volume, one launch
 * each.  Winner-takes-all (sd-cuda-wta.cu) reads them.
 *
 * Bands (SdSgmCarry): the same sweeps over a band of rows, each line going
 * on from the path costs carried in at the band's edge and leaving its own
 * where it leaves the band, so that bands give the whole frame's bits.
 *
 * Bit-exactness with common/cpu/sgm.c: every value fits in 16 bits (a path
 * cost is at most cost_max + P2 <= 4350, a sum of 8 at most 34800) and the
 * recurrence is the reference's. */
#include <limits.h>
#include <string.h>

#include "sd-cuda-sgm.cuh"
#include "sd-cuda-chain.cuh"
#include "sd-cost.h"

#define SD_SGM_WARPS 4          /* warps per block */
#define SD_MAX_SEGMENTS 8

typedef struct
{
  const uint8_t *guide;         /* left luma, for the adaptive P2 */
  const uint8_t *cost;          /* the cost volume */
  uint8_t *volume;
  size_t path_stride;           /* bytes from one 8-bit path volume to the next */
  int width, height, D, dp;     /* dp: disparity slots per pixel */
  int p1, p2, adaptive;
  int first;                    /* 16-bit mode: this direction writes the sum */
  /* the directions of one launch: segment s sweeps direction dir[s] in
   * blocks[s] blocks and writes volume slot s; with bands, carry_in[s] and
   * carry_out[s] are the direction's SdSgmCarry rows.  Group q, segments
   * [group_seg[q], group_seg[q + 1]), takes blocks [group_block0[q],
   * group_block0[q + 1]), its segments' blocks in turn (sd_block_segment) */
  int n_segments, n_groups;
  int dir[SD_MAX_SEGMENTS];
  int blocks[SD_MAX_SEGMENTS];
  int group_seg[SD_MAX_SEGMENTS + 1];
  int group_block0[SD_MAX_SEGMENTS + 1];
  const uint16_t *carry_in[SD_MAX_SEGMENTS];
  uint16_t *carry_out[SD_MAX_SEGMENTS];
  int store;                    /* with bands: write the volume (not in
                                 * their upward pass) */
  SdP2Table p2_table;           /* read with the adaptive P2 */
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

int
sd_cuda_sgm_direction_dy (int dir)
{
  int dx, dy;
  sd_direction (dir, &dx, &dy);
  return dy;
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

/* ---- one path step ------------------------------------------------------- */

/* L[k] = C[k] + min(P[k], P[k-1] + P1, P[k+1] + P1, minP + P2) - minP, on
 * the lane's packed registers; returns the new group-wide minimum. */
template < int LANES, int DPL > __device__ __forceinline__ uint32_t
sd_path_step (uint32_t (&P)[(DPL + 1) / 2], uint32_t min_prev,
    const uint32_t (&c)[(DPL + 1) / 2], uint32_t p1x2, uint32_t p2,
    const uint32_t (&keep)[(DPL + 1) / 2], int g)
{
  const int NP = (DPL + 1) / 2;
  uint32_t rm[NP], rp[NP];
#pragma unroll
  for (int p = 0; p < NP; p++) {
    rm[p] = __shfl_sync (SD_FULL_MASK, P[p], (g + LANES - 1) & (LANES - 1),
        LANES);
    rp[p] = __shfl_sync (SD_FULL_MASK, P[p], (g + 1) & (LANES - 1), LANES);
  }
  uint32_t km1[NP], kp1[NP];
#pragma unroll
  for (int p = 0; p < NP; p++) {
    /* lane 0's k - 1 and the last lane's k + 1 live in the other register
     * of the pair: k = g + 2 LANES p (low half), g + 2 LANES p + LANES
     * (high half) */
    km1[p] = g == 0 ?
        __byte_perm (p > 0 ? rm[p - 1] : SD_SENT2, rm[p], 0x5432) : rm[p];
    kp1[p] = g == LANES - 1 ?
        __byte_perm (rp[p], p + 1 < NP ? rp[p + 1] : SD_SENT2, 0x5432) :
        rp[p];
  }
  const uint32_t lmin = sd_path_cells < DPL > (P, km1, kp1, min_prev, c,
      p1x2, p2, keep);
  return sd_group_min_converged < LANES > (min (lmin & 0xffff, lmin >> 16));
}

/* The P2 of a step: the constant one, or the adaptive one from the
 * block's table. */
__device__ __forceinline__ uint32_t
sd_penalty2 (const SdSgmArgs & a, const uint32_t * p2_of_step, uint32_t g,
    uint32_t g_prev)
{
  if (!a.adaptive)
    return a.p2;
  return sd_step_penalty2 (p2_of_step, g, g_prev);
}

/* ---- the kernel ------------------------------------------------------------ */

/* One group's sweep of one line: len pixels from (x, y) by (dx, dy).  The
 * groups of a warp step together, steps times (the longest of their
 * lines): a group whose line is shorter computes on without storing, so
 * that every shuffle and reduction runs on the whole warp, which the
 * compiler then issues as one instruction, without the checks it adds where
 * the lanes of a mask might have diverged.  CARRY (bands): a line that
 * enters through the band's top or bottom row goes on from carry_in's path
 * costs where the frame has a pixel before it, and one that leaves through
 * the other saves its last costs in carry_out; a template parameter, so
 * that the whole frame's kernels stay as they were. */
template < int LANES, int DPL, bool U8, bool DEEP, bool CARRY > __device__
    __forceinline__ void
sd_path_sweep (const SdSgmArgs & a, int seg, int x, int y, int len,
    int steps, int dx, int dy, int g, const uint32_t * p2_of_step,
    const uint16_t * carry_in, uint16_t * carry_out)
{
  const int NP = (DPL + 1) / 2;
  const int w = a.width;
  uint32_t keep[NP], P[NP];
  sd_lane_masks < LANES, DPL > (a.D, g, keep);
#pragma unroll
  for (int p = 0; p < NP; p++)
    P[p] = SD_SENT2 & ~keep[p]; /* zeros: the first step gives L = C */
  uint32_t min_prev = 0;
  const uint32_t p1x2 = (uint32_t) a.p1 * 0x10001u;
  const ptrdiff_t step = (ptrdiff_t) dy * w + dx;
  const ptrdiff_t vstep = step * a.dp;
  /* the cells of the pixel being stored */
  uint8_t *vol8 = a.volume + (size_t) seg * a.path_stride +
      ((size_t) y * w + x) * a.dp + g * DPL;
  uint16_t *vol16 = (uint16_t *) a.volume + ((size_t) y * w + x) * a.dp +
      g * DPL;

  /* reads go out several pixels ahead (a group's steps are one dependency
   * chain); the l pointers: the pixel of the next read, which stops at the
   * end */
  struct In
  {
    SdBytes < DPL > cost;
    uint32_t guide;
    SdHalves < DPL > old;
  };
  int loads = 0;
  const uint8_t *lguide = a.guide + (size_t) y * w + x;
  const uint8_t *lcost = a.cost + ((size_t) y * w + x) * a.dp + g * DPL;
  const uint16_t *lold = vol16;
  auto load =[&](In & in) {
    in.guide = *lguide;
    in.cost = sd_load_u8 < DPL > (lcost);
    if (!U8 && !a.first)
      in.old = sd_load_u16 < DPL > (lold);
    if (++loads < len) {
      lguide += step;
      lcost += vstep;
      lold += vstep;
    }
  };
  /* a ring of RING reads in flight: the cost volume comes from device
   * memory (hundreds of cycles).  With the read issued after the store
   * (below), 14 measured best up to 128 disparities (12: 2.5 % longer at
   * 1242x375) and 9 above (8: 0.4 % longer at 3840x2160/256); before, with
   * the read first in the step, 4, 6 and 7 took 5 to 7 % longer than 8 at
   * 3840x2160/256 and 12 13 % longer (docs/performance.md, runs 24, 26) */
  const int RING = DEEP ? (U8 ? 14 : 6) : (U8 ? 9 : 3);
  In ring[RING];
#pragma unroll
  for (int r = 0; r < RING; r++)
    load (ring[r]);
  uint32_t g_prev = ring[0].guide;
  int save_at = -1;             /* the step whose costs go to carry_out */
  if constexpr (CARRY) {
    const int xp = x - dx;
    if (carry_in && len > 0 && dy != 0 && y == (dy > 0 ? 0 : a.height - 1)
        && xp >= 0 && xp < w) {
      const SdHalves < DPL > c = sd_load_u16 < DPL > (carry_in +
          (size_t) xp * a.dp + g * DPL);
      /* padded slots the sentinel again: with one slot a lane the row
       * holds only the low half of the register */
#pragma unroll
      for (int p = 0; p < NP; p++)
        P[p] = (c.w[p] & keep[p]) | (SD_SENT2 & ~keep[p]);
      /* the guide rows beside the band are the frame's */
      g_prev = a.guide[(ptrdiff_t) (y - dy) * w + xp];
    }
    /* the minimum the previous step would have left (0 for a fresh line) */
    uint32_t m = SD_FULL_MASK;
#pragma unroll
    for (int p = 0; p < NP; p++)
      m = sd_min16x2 (m, P[p]);
    min_prev = sd_group_min < LANES > (min (m & 0xffff, m >> 16),
        SD_FULL_MASK);
    if (carry_out && len > 0 && dy != 0
        && y + (len - 1) * dy == (dy > 0 ? a.height - 1 : 0)) {
      save_at = len - 1;
      carry_out += (size_t) (x + (len - 1) * dx) * a.dp + g * DPL;
    }
  }
  auto body =[&](In & in, bool store, bool save) {
    uint32_t c[NP];
    sd_unpack_u8 < DPL > (c, in.cost);
    const uint32_t gv = in.guide;
    const uint32_t p2 = sd_penalty2 (a, p2_of_step, gv, g_prev);
    g_prev = gv;
    min_prev = sd_path_step < LANES, DPL > (P, min_prev, c, p1x2, p2, keep,
        g);
    if (CARRY && save)
      sd_store_u16 < DPL > (carry_out, P);
    if (store && (!CARRY || a.store)) {
      if (U8) {
        sd_store_u8 < DPL, true > (vol8, P);
        vol8 += vstep;
      } else if (a.first) {
        sd_store_u16 < DPL > (vol16, P);
        vol16 += vstep;
      } else {
        uint32_t s[NP];
#pragma unroll
        for (int p = 0; p < NP; p++)
          s[p] = sd_add16x2 (P[p], in.old.w[p]);
        sd_store_u16 < DPL > (vol16, s);
        vol16 += vstep;
      }
    }
    /* the slot's next read goes out after the store: issued first in the
     * step, as it was before the groups stepped together, nvcc moved the
     * ring's registers through copies that wait for the reads, which
     * undoes the read-ahead (13 % longer at 1920x1080/128, run 26) */
    load (in);
  };
  for (int i = 0; i < steps; i += RING) {
#pragma unroll
    for (int r = 0; r < RING; r++)
      if (i + r < steps)
        body (ring[r], i + r < len, i + r == save_at);
  }
}

/* The segment of block b and which of its blocks b is.  The segments of a
 * group take their blocks in turn, one each (a segment that has none left
 * drops out), so that blocks that start together sweep the same rows at
 * the same time: the three directions down (or up) from neighbouring
 * columns of the first row then read the same cost rows, while they are
 * in the L2. */
__device__ __forceinline__ void
sd_block_segment (const SdSgmArgs & a, int b, int *seg, int *seg_block)
{
  int group = 0;
#pragma unroll
  for (int q = 1; q < SD_MAX_SEGMENTS; q++)
    if (q < a.n_groups && b >= a.group_block0[q])
      group = q;
  int first = 0, end = 0;
#pragma unroll
  for (int q = 0; q < SD_MAX_SEGMENTS; q++)
    if (q == group) {
      first = a.group_seg[q];
      end = a.group_seg[q + 1];
      b -= a.group_block0[q];
    }
  /* rounds r0 .. rmin - 1 give a block to each of the m segments that
   * have more than r0 */
  int r0 = 0;
  *seg = first;
  *seg_block = 0;
  for (int phase = 0; phase < SD_MAX_SEGMENTS; phase++) {
    int m = 0, rmin = INT_MAX;
#pragma unroll
    for (int s = 0; s < SD_MAX_SEGMENTS; s++)
      if (s >= first && s < end && a.blocks[s] > r0) {
        m++;
        rmin = min (rmin, a.blocks[s]);
      }
    if (m == 0)
      return;
    if (b < (rmin - r0) * m) {
      *seg_block = r0 + b / m;
      int k = b % m;
#pragma unroll
      for (int s = 0; s < SD_MAX_SEGMENTS; s++)
        if (s >= first && s < end && a.blocks[s] > r0 && k-- == 0)
          *seg = s;
      return;
    }
    b -= (rmin - r0) * m;
    r0 = rmin;
  }
}

template < int LANES, int DPL, bool U8, bool DEEP, bool CARRY > __global__
    void
__launch_bounds__ (32 * SD_SGM_WARPS)
sd_sgm_path_kernel (const SdSgmArgs a)
{
  sd_chain_wait ();
  const int lane = threadIdx.x & 31;
  const int g = lane & (LANES - 1);
  const int warp = threadIdx.x >> 5;
  __shared__ uint32_t p2_of_step[SD_GUIDE_STEPS];
  if (a.adaptive)
    sd_fill_penalty2 (a.p2_table, p2_of_step);
  int seg, seg_block;
  sd_block_segment (a, (int) blockIdx.x, &seg, &seg_block);
  int dir = 0;
  const uint16_t *carry_in = NULL;
  uint16_t *carry_out = NULL;
#pragma unroll
  for (int s = 0; s < SD_MAX_SEGMENTS; s++)
    if (s == seg) {
      dir = a.dir[s];
      if (CARRY) {
        carry_in = a.carry_in[s];
        carry_out = a.carry_out[s];
      }
    }
  const int line = (seg_block * SD_SGM_WARPS + warp) * (32 / LANES) +
      lane / LANES;
  const int w = a.width, h = a.height;
  int dx, dy;
  sd_direction (dir, &dx, &dy);
  /* where the line enters the image, and its length; a group past the
   * last line sweeps nothing (len 0) but steps with the other group of its
   * warp */
  int x = 0, y = 0, len = 0;
  if (dy == 0) {
    if (line < h) {
      y = line;
      x = dx > 0 ? 0 : w - 1;
      len = w;
    }
  } else if (dx == 0) {
    if (line < w) {
      x = line;
      y = dy > 0 ? 0 : h - 1;
      len = h;
    }
  } else if (line < w + h - 1) {
    if (line < w) {
      x = line;
      y = dy > 0 ? 0 : h - 1;
    } else {
      x = dx > 0 ? 0 : w - 1;
      y = dy > 0 ? line - w + 1 : h - 1 - (line - w + 1);
    }
    len = min (dx > 0 ? w - x : x + 1, dy > 0 ? h - y : y + 1);
  }
  const int steps = sd_warp_max (len);
  if (steps == 0)
    return;
  sd_path_sweep < LANES, DPL, U8, DEEP, CARRY > (a, seg, x, y, len, steps,
      dx, dy, g, p2_of_step, carry_in, carry_out);
}

/* ---- launchers ------------------------------------------------------------ */

int
sd_cuda_sgm_uses_8bit (const SdParams * p)
{
  return sd_cost_max (p) + p->p2 <= 255;
}

SdSgmVolumes
sd_cuda_sgm_volumes (const SdParams * p, int rows_strip)
{
  if (!sd_cuda_sgm_uses_8bit (p))
    return SD_SGM_VOLUMES_SUM16;
  if (rows_strip > 0)
    return SD_SGM_VOLUMES_ROWS;
  return p->paths == 4 ? SD_SGM_VOLUMES_PATHS4 : SD_SGM_VOLUMES_PATHS8;
}

size_t
sd_cuda_sgm_carry_row_bytes (const SdParams * p, int width)
{
  const size_t bytes = (size_t) width *
      sd_sgm_cells_per_pixel (p->num_disparities) * sizeof (uint16_t);
  return (bytes + 255) & ~(size_t) 255;
}

size_t
sd_cuda_sgm_volume_bytes (const SdParams * p, int width, int height,
    int rows_strip)
{
  const size_t cells = (size_t) width * height *
      sd_sgm_cells_per_pixel (p->num_disparities);
  size_t bytes;
  switch (sd_cuda_sgm_volumes (p, rows_strip)) {
    case SD_SGM_VOLUMES_SUM16:
      bytes = cells * 2;
      break;
    case SD_SGM_VOLUMES_ROWS:
      bytes = cells * 4 + sd_cuda_sgm_rows_bytes (width);
      break;
    default:
      bytes = cells * p->paths;
  }
  return (bytes + 255) & ~(size_t) 255;
}

/* The path kernel for one layout: 8-bit volumes (u8) or the 16-bit sum,
 * with the deep read ring or not, carrying paths across band edges or
 * not. */
struct SdPathLaunch
{
  const SdSgmArgs & a;
  bool u8, deep, carry;
  cudaStream_t stream;
  template < int LANES, int DPL, bool U8, bool DEEP > void with_deep () const
  {
    const dim3 block (32 * SD_SGM_WARPS);
    const dim3 grid (a.group_block0[a.n_groups]);
    if (carry)
      sd_cuda_launch_chained (sd_sgm_path_kernel < LANES, DPL, U8, DEEP,
          true >, grid, block, 0, stream, a);
    else
      sd_cuda_launch_chained (sd_sgm_path_kernel < LANES, DPL, U8, DEEP,
          false >, grid, block, 0, stream, a);
  }
  template < int LANES, int DPL, bool U8 > void with_u8 () const
  {
    if (deep)
      with_deep < LANES, DPL, U8, true > ();
    else
      with_deep < LANES, DPL, U8, false > ();
  }
  template < int LANES, int DPL > void run () const
  {
    if (u8)
      with_u8 < LANES, DPL, true > ();
    else
      with_u8 < LANES, DPL, false > ();
  }
};

/* Direction dir as the next segment of a launch; its carry rows (bands)
 * from c. */
static void
sd_add_segment (SdSgmArgs * a, int dir, int lines_per_block,
    const SdSgmCarry * c)
{
  const int seg = a->n_segments++;
  a->dir[seg] = dir;
  a->blocks[seg] = sd_cuda_div_up (sd_direction_lines (dir, a->width,
          a->height), lines_per_block);
  a->carry_in[seg] = c ? c->in[dir] : NULL;
  a->carry_out[seg] = c ? c->out[dir] : NULL;
}

/* The segments added since the last group, if any, as a group of their
 * own, its blocks after the last group's. */
static void
sd_end_group (SdSgmArgs * a)
{
  const int q = a->n_groups;
  if (a->group_seg[q] == a->n_segments)
    return;
  int blocks = 0;
  for (int s = a->group_seg[q]; s < a->n_segments; s++)
    blocks += a->blocks[s];
  a->group_seg[q + 1] = a->n_segments;
  a->group_block0[q + 1] = a->group_block0[q] + blocks;
  a->n_groups = q + 1;
}

cudaError_t
sd_cuda_sgm (const SdParams * p, const SdCudaSgmBuffers * b,
    cudaStream_t stream)
{
  SdSgmArgs a;
  memset (&a, 0, sizeof (a));
  const int w = b->width, h = b->height;
  const int D = p->num_disparities;
  int lanes, dpl;
  sd_sgm_layout (D, &lanes, &dpl);
  const int lines_per_block = SD_SGM_WARPS * (32 / lanes);
  a.guide = b->guide;
  a.cost = (const uint8_t *) b->cost_volume;
  a.volume = (uint8_t *) b->volume;
  a.dp = lanes * dpl;
  a.path_stride = (size_t) w * h * a.dp;
  a.width = w;
  a.height = h;
  a.D = D;
  a.p1 = p->p1;
  a.p2 = p->p2;
  a.adaptive = sd_params_p2_adaptive (p);
  sd_p2_table (p, &a.p2_table);
  const SdSgmCarry *c = b->carry;
  const bool up_only = c && c->up_only;
  a.store = !up_only;

  const SdSgmVolumes v = sd_cuda_sgm_volumes (p, b->rows_strip);
  if (v != SD_SGM_VOLUMES_SUM16) {
    /* the upward pass of bands takes the path kernel even where the rows
     * aggregate the frame: the rows are bound by their chain of rows, which
     * the up pass alone does not shorten (3840x2160/256 in two bands: 23.5
     * ms with the rows' up pass, docs/performance.md) */
    const bool rows = v == SD_SGM_VOLUMES_ROWS && !up_only;
    const int n = rows ? 2 : p->paths;
    /* the first n directions, or (no volume written) the upward ones, in
     * three groups: the horizontal lines first, the longest, so that they
     * start early; then those that go down, then those that go up */
    const int group_dy[3] = { 0, 1, -1 };
    for (int q = 0; q < 3; q++) {
      for (int i = 0; i < n; i++)
        if (sd_cuda_sgm_direction_dy (i) == group_dy[q]
            && (!up_only || group_dy[q] < 0))
          sd_add_segment (&a, i, lines_per_block, c);
      sd_end_group (&a);
    }
    if (!rows) {
      sd_sgm_with_layout (D, SdPathLaunch { a, true, b->deep_reads != 0,
          c != NULL, stream });
      return cudaGetLastError ();
    }
    /* the rows first (a cooperative launch: all its blocks at once), the
     * horizontal lines on aside beside them */
    const size_t cells = (size_t) w * h * a.dp;
    uint16_t *const sum = (uint16_t *) (a.volume + 2 * cells);
    cudaError_t e = cudaEventRecord (b->fork, stream);
    if (e == cudaSuccess)
      e = sd_cuda_sgm_rows (p, a.cost, a.guide, sum, a.volume + 4 * cells,
          w, h, b->rows_strip, c, stream);
    if (e == cudaSuccess)
      e = cudaStreamWaitEvent (b->aside, b->fork, 0);
    if (e != cudaSuccess)
      return e;
    sd_sgm_with_layout (D, SdPathLaunch { a, true, b->deep_reads != 0,
        false, b->aside });
    if ((e = cudaGetLastError ()) == cudaSuccess)
      e = cudaEventRecord (b->join, b->aside);
    if (e == cudaSuccess)
      e = cudaStreamWaitEvent (stream, b->join, 0);
    return e;
  }
  for (int i = 0; i < p->paths; i++) {
    if (up_only && sd_cuda_sgm_direction_dy (i) >= 0)
      continue;
    a.n_segments = a.n_groups = 0;
    sd_add_segment (&a, i, lines_per_block, c);
    sd_end_group (&a);
    a.first = i == 0;
    sd_sgm_with_layout (D, SdPathLaunch { a, false, b->deep_reads != 0,
        c != NULL, stream });
    const cudaError_t e = cudaGetLastError ();
    if (e != cudaSuccess)
      return e;
  }
  return cudaSuccess;
}
