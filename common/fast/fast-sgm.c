/* Fast SGM: common/cpu/sgm.c's sums and common/cpu/refine.c's read-out,
 * bit for bit, in two sweeps over the image instead of one per direction.
 *
 * The down sweep visits rows top to bottom, each left to right, and carries
 * the paths that come from above or from the left: (1,0), (0,1), (1,1),
 * (-1,1).  The up sweep visits rows bottom to top, right to left, and
 * carries the other four.  A sweep keeps the previous row's path costs of
 * its directions (a few MB, in cache) and adds its directions' costs for a
 * pixel before they leave the registers, so each sweep reads the cost volume
 * once.  The two sweeps run side by side, each on its share of the threads,
 * which cut its rows into column ranges run as a wavefront (see sweep()).
 * The sweep that reaches a row first, the down sweep above the band's
 * middle row and the up sweep from it on, stores its partial sum there; the
 * other, once that row is done, adds its own to it (uint16 addition wraps
 * as the reference's does, in any order) and reads the row out at once:
 * the reference's winner takes all, and each right pixel's smallest sum so
 * far for the right-view disparity.  So the sums go through memory once,
 * 2 bytes a pixel and disparity written and read back; with one path a
 * direction, the per-direction design before this one moved the whole sum
 * volume through memory eight times, and a read-out after both sweeps
 * three (docs/performance.md).
 *
 * In bands (sd-band.h: a frame whose volumes do not fit the memory) the
 * output stays the whole frame's.  The cost volume and the partial sums
 * hold one band's rows; the down sweep's path rows carry from one band to
 * the next as they are, and the up sweep's, which would come from the band
 * below, are made first: a pass from the bottom band up runs the up sweep
 * alone and keeps its path rows at each band's top edge.  So the costs of
 * all bands but the top one are computed twice, as on cuda.
 *
 * Path costs are cells, CELLS to a vector, in a block of the disparity count
 * rounded up to CELLS with one slot on each side.  Every cell that stands
 * for no disparity (the slot before k = 0, the rounding, the slot after)
 * holds the sentinel, so that the step reads prev[k - 1] and prev[k + 1] as
 * whole shifted vectors and never takes them.  A path's first pixel steps
 * from a block of zeros with smallest cost 0, which gives the reference's
 * "cost alone".
 *
 * The cells are int16 here: no value overflows, as a path cost is at most
 * the largest cost plus P2 (255 + 4095), and the sentinel 0x4000 + P1 stays
 * below 32768.  fast-sgm-cells8.c builds this file again with uint8 cells,
 * twice the disparities a vector and half the bytes of the path rows, for
 * the parameters where that is exact and pays (cells8_fit).  Exact: every
 * path cost is at most V = the largest cost + P2, and with V + P1 <= 255 the
 * sentinel 255 - P1 is at least V, so neither a cost nor the sentinel plus
 * P1 wraps, and a step's smallest candidate is the same.  The costs wrap in
 * between (cost + best - base), but the result lies in 0 .. V, so it is the
 * same too. */
#include "sd-fast.h"
#include "../sd-band.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "fast-vector.h"

#ifndef SD_SGM_CELL_BYTES
#define SD_SGM_CELL_BYTES 2
#endif
#if SD_SGM_CELL_BYTES == 1
typedef uint8_t cell;
typedef vbw vcell;
#define CELLS_FN(name) SD_FAST (name##_cells8)
#else
typedef int16_t cell;
typedef vs vcell;
#define CELLS_FN(name) SD_FAST (name##_cells16)
#endif
/* cells a vector, and sum vectors (LANES uint16) a vector of cells */
#define CELLS (LANES * 2 / SD_SGM_CELL_BYTES)
#define SUM_VECTORS (CELLS / LANES)

size_t SD_FAST (sd_fast_sgm_workspace_bytes_cells8) (const SdParams * p,
    int width, int height, int band_rows);
size_t SD_FAST (sd_fast_sgm_workspace_bytes_cells16) (const SdParams * p,
    int width, int height, int band_rows);
void SD_FAST (sd_fast_sgm_cells8) (const SdParams * p, SdCostRows cost_rows,
    void *cost_user, const uint8_t * guide, int16_t * disp, uint8_t * margin,
    int16_t * right_disp, void *workspace, int width, int height,
    int band_rows);
void SD_FAST (sd_fast_sgm_cells16) (const SdParams * p, SdCostRows cost_rows,
    void *cost_user, const uint8_t * guide, int16_t * disp, uint8_t * margin,
    int16_t * right_disp, void *workspace, int width, int height,
    int band_rows);
/* How many pixels ahead the second sweep asks for the stored sums: it
 * would otherwise wait for each pixel's from memory */
#define SUMS_AHEAD 4
/* and both sweeps for the costs: with AVX2 on the 16-core Xeon the frame
 * at 1920x1080 took 3 to 9 % less so, with AVX-512 1 to 2 %
 * (docs/performance.md) */
#define COSTS_AHEAD 4

/* Asks for the cache lines of [p, p + bytes). */
static inline void
prefetch_bytes (const void *p, size_t bytes)
{
  for (size_t b = 0; b < bytes; b += 64)
    __builtin_prefetch ((const char *) p + b);
}

static inline vcell
load_cells (const cell * p)
{
  vcell v;
  memcpy (&v, p, sizeof (v));
  return v;
}

static inline void
store_cells (cell * p, vcell v)
{
  memcpy (p, &v, sizeof (v));
}

static inline vcell
splat_cells (int v)
{
  return (vcell) { } + (cell) v;
}

/* The costs of a vector's cells. */
static inline vcell
load_costs (const uint8_t * c)
{
#if SD_SGM_CELL_BYTES == 1
  vcell v;
  memcpy (&v, c, sizeof (v));
  return v;
#else
  return __builtin_convertvector (load_bytes (c), vs);
#endif
}

static inline vcell
min_cells (vcell a, vcell b)
{
#if SD_SGM_CELL_BYTES == 1
  return vminu8 (a, b);
#else
  return vmin (a, b);
#endif
}

/* The sums of a vector of cells as a pixel's paths add up: SUM_VECTORS
 * vectors, with uint8 cells in the order add_cell_pair leaves them. */
typedef struct
{
  vu v[SUM_VECTORS];
} CellSums;

#if SD_SGM_CELL_BYTES == 1
/* Half h of a vector of uint8 cells as uint16 lanes. */
static inline vu
sum_lanes (vcell v, int h)
{
  vb half;
  memcpy (&half, (const char *) &v + h * LANES, sizeof (half));
  return __builtin_convertvector (half, vu);
}

/* Two paths' cells, a and b, added into sums.  On x86 their bytes are
 * interleaved (one unpack a half) and each pair added by one multiply-add
 * by ones: two instructions a half for two paths, where widening each path
 * takes three for both halves.  The unpacks work within 16-byte lanes, so
 * per lane its first 8 cells' sums are in v[0] and the other 8 in v[1];
 * sums_in_order puts them back (with 16-byte vectors they are in order). */
static inline void
add_cell_pair (CellSums * sums, vcell a, vcell b)
{
#if defined(__AVX512BW__)
  const __m512i ones = _mm512_set1_epi8 (1);
  sums->v[0] += (vu) _mm512_maddubs_epi16 (_mm512_unpacklo_epi8 ((__m512i) a,
          (__m512i) b), ones);
  sums->v[1] += (vu) _mm512_maddubs_epi16 (_mm512_unpackhi_epi8 ((__m512i) a,
          (__m512i) b), ones);
#elif defined(__AVX2__)
  const __m256i ones = _mm256_set1_epi8 (1);
  sums->v[0] += (vu) _mm256_maddubs_epi16 (_mm256_unpacklo_epi8 ((__m256i) a,
          (__m256i) b), ones);
  sums->v[1] += (vu) _mm256_maddubs_epi16 (_mm256_unpackhi_epi8 ((__m256i) a,
          (__m256i) b), ones);
#elif defined(__SSSE3__)
  const __m128i ones = _mm_set1_epi8 (1);
  sums->v[0] += (vu) _mm_maddubs_epi16 (_mm_unpacklo_epi8 ((__m128i) a,
          (__m128i) b), ones);
  sums->v[1] += (vu) _mm_maddubs_epi16 (_mm_unpackhi_epi8 ((__m128i) a,
          (__m128i) b), ones);
#else
  for (int h = 0; h < SUM_VECTORS; h++)
    sums->v[h] += sum_lanes (a, h) + sum_lanes (b, h);
#endif
}

/* The sums of add_cell_pair in the cells' order. */
static inline void
sums_in_order (CellSums * sums)
{
#if defined(__AVX512BW__)
  /* 16-byte lanes: v[0] holds the cells' 0-7, 16-23, 32-39 and 48-55,
   * v[1] their 8-15, 24-31, 40-47 and 56-63 */
  const __m512i first = _mm512_set_epi64 (11, 10, 3, 2, 9, 8, 1, 0);
  const __m512i second = _mm512_set_epi64 (15, 14, 7, 6, 13, 12, 5, 4);
  const __m512i a = (__m512i) sums->v[0], b = (__m512i) sums->v[1];
  sums->v[0] = (vu) _mm512_permutex2var_epi64 (a, first, b);
  sums->v[1] = (vu) _mm512_permutex2var_epi64 (a, second, b);
#elif defined(__AVX2__)
  /* v[0] holds the cells' 0-7 and 16-23, v[1] their 8-15 and 24-31 */
  const __m256i a = (__m256i) sums->v[0], b = (__m256i) sums->v[1];
  sums->v[0] = (vu) _mm256_permute2x128_si256 (a, b, 0x20);
  sums->v[1] = (vu) _mm256_permute2x128_si256 (a, b, 0x31);
#else
  (void) sums;
#endif
}
#else
static inline void
add_cell_pair (CellSums * sums, vcell a, vcell b)
{
  sums->v[0] += (vu) a + (vu) b;
}

static inline void
sums_in_order (CellSums * sums)
{
  (void) sums;
}
#endif

/* The smallest lane, unsigned, by halving down to 8 lanes and then, where
 * SSE4.1 has it, one instruction.  Path costs are >= 0, so it is their
 * signed minimum too. */
typedef uint16_t u32l __attribute__((vector_size (64)));
typedef uint16_t u16l __attribute__((vector_size (32)));
typedef uint16_t u8l __attribute__((vector_size (16)));
typedef uint16_t u4l __attribute__((vector_size (8)));
#define HALVE(half, v) ({ \
      half lo_, hi_; \
      memcpy (&lo_, &(v), sizeof (lo_)); \
      memcpy (&hi_, (const char *) &(v) + sizeof (lo_), sizeof (hi_)); \
      (half) ((lo_ & (half) (lo_ < hi_)) | (hi_ & ~(half) (lo_ < hi_))); })

static inline int
hmin (vu v)
{
#if LANES == 32
  const u16l m16 = HALVE (u16l, v);
  const u8l m8 = HALVE (u8l, m16);
#elif LANES == 16
  const u8l m8 = HALVE (u8l, v);
#else
  const u8l m8 = v;
#endif
#ifdef __SSE4_1__
  return _mm_extract_epi16 (_mm_minpos_epu16 ((__m128i) m8), 0);
#else
  const u4l m4 = HALVE (u4l, m8);
  int m = m4[0];
  for (int i = 1; i < 4; i++)
    if (m4[i] < m)
      m = m4[i];
  return m;
#endif
}

/* The smallest of a vector's cells. */
static inline int
min_of_cells (vcell v)
{
#if SD_SGM_CELL_BYTES == 1
  return hmin (vminu (sum_lanes (v, 0), sum_lanes (v, 1)));
#else
  return hmin ((vu) v);
#endif
}

/* One direction's state in a sweep: the path costs (width blocks) and
 * their smallest ones (width) of two rows, the row a pixel is in and the one
 * before, by the parity of the row's index in the sweep.  The horizontal
 * path reads its own row, the others the row before.  Within a thread's
 * columns the horizontal path's costs go from pixel to pixel through two
 * blocks of the thread's own (own), which stay in the first-level cache;
 * they go through the row only from a thread's last column to the next
 * thread's first. */
typedef struct
{
  int dx, dy;                   /* the previous pixel is (x - dx, y - dy) */
  cell *rows[2];
  int *mins[2];
  cell *own[2];                 /* the horizontal path's */
} Path;

/* The paths of one sweep: paths[0] is the horizontal one. */
#define MAX_SWEEP_PATHS 4

/* The right view's candidates of one row: each right pixel's smallest sum
 * so far and its disparity index, stored from the right end of the row
 * backwards (see pixels). */
typedef struct
{
  uint16_t *least, *index;
} RightRow;

/* What a sweep needs to know of the frame and of the band it runs over. */
typedef struct
{
  const SdParams *p;
  const uint8_t *cost;          /* the band's */
  uint16_t *sum;                /* the band's: the first sweep's partial sums */
  bool reads_out;               /* false for the up sweep alone */
  int mid;                      /* the band's frame rows above it are the
                                 * down sweep's first, the others the up
                                 * sweep's */
  bool right;                   /* the right view is asked for */
  RightRow right_rows;          /* the band's rows' (width + summed slots a row) */
  int16_t *disp;                /* the frame's */
  uint8_t *margin;              /* the frame's, or NULL */
  const uint8_t *guide;         /* the frame's */
  int width, height, D;
  int y0, rows;                 /* the band's frame rows */
  int padded;                   /* D rounded up to CELLS */
  int summed;                   /* D rounded up to LANES: a pixel's sums */
  int block;                    /* padded + 2: a pixel's path costs */
  vcell tail;                   /* cells of the last vector that are disparities */
  int sentinel;                 /* the cells that are none */
  vu lane;                      /* 0 .. LANES - 1 */
  const cell *zeros;            /* a block of zeros: a path's start */
  int p2_of_step[SD_GUIDE_STEPS];        /* the P2 of each step between two
                                         * 8-bit guide values: a lookup,
                                         * not a division a pixel and path */
} Frame;

/* A step's input: the previous pixel's path costs (its block + 1), their
 * smallest one and the P2 of the step. */
typedef struct
{
  const cell *prev;
  int prev_min, p2;
} StepIn;

/* What a row is to a sweep: the first to reach it (its partial sum is
 * stored), the second (added to the stored one and read out), or neither
 * (the up sweep alone, for the band edges' path rows). */
typedef enum
{
  ROW_FIRST,
  ROW_SECOND,
  ROW_ALONE,
} RowRole;

/* Where sum is below least, lane by lane (or equal, with or_equal), least
 * takes it and index takes at: so that each lane keeps the smallest index
 * of its smallest sums whether the indices come rising (strict) or
 * falling (or_equal). */
static inline void
keep_smaller (vu * least, vu * index, vu sum, vu at, bool or_equal)
{
  const vu less = or_equal ? (vu) (sum <= *least) : (vu) (sum < *least);
  *least = (sum & less) | (*least & ~less);
  *index = (at & less) | (*index & ~less);
}

/* A thread's read-out of the second sweep's pixels: a pixel's summed
 * costs (summed), and the right view's candidates of its columns (see
 * pixels). */
typedef struct
{
  uint16_t *sums;
  RightRow right;
} ReadOutRows;

/* The second sweep's sums of one pixel as they come, vector by vector:
 * into the thread's sums, their smallest one into least, and, where right
 * is set, each into the candidates of the right pixels it offers to. */
typedef struct
{
  uint16_t *sums;
  vu least;
  RightRow right;               /* at the pixel's slot of k = 0, or NULL */
  bool backwards;               /* the pixels come right to left */
} PixelSums;

static inline void
add_sums (const Frame * f, PixelSums * ps, int k, vu sum)
{
  const vu none = (vu) { } + (uint16_t) 0xFFFF;
  if (k + LANES > f->D) {
    const vu keep = (vu) (f->lane + (uint16_t) k < (vu) { } + (uint16_t) f->D);
    sum = (sum & keep) | (none & ~keep);
  }
  memcpy (ps->sums + k, &sum, sizeof (sum));
  ps->least = vminu (ps->least, sum);
  if (ps->right.least) {
    vu old, index;
    memcpy (&old, ps->right.least + k, sizeof (old));
    memcpy (&index, ps->right.index + k, sizeof (index));
    keep_smaller (&old, &index, sum, f->lane + (uint16_t) k, ps->backwards);
    memcpy (ps->right.least + k, &old, sizeof (old));
    memcpy (ps->right.index + k, &index, sizeof (index));
  }
}

/* The n paths' costs at one pixel (cost c) from their inputs into out[i]
 * (block + 1), their smallest ones into out_min[i], and their sum, as the
 * row's role says: into partial (summed values; past the caches, as the
 * other sweep reads it rows later), or added to partial into ps.  n is a
 * constant where this is inlined, role the same for a whole row. */
static inline __attribute__((always_inline)) void
pixel_step (const Frame * f, int n, RowRole role, const uint8_t * c,
    const StepIn * in, cell * const *out, int *out_min, uint16_t * partial,
    PixelSums * ps)
{
  const vcell p1 = splat_cells (f->p->p1), sentinel = splat_cells (f->sentinel);
  vcell least[MAX_SWEEP_PATHS], jump[MAX_SWEEP_PATHS], base[MAX_SWEEP_PATHS];
  for (int i = 0; i < n; i++) {
    least[i] = sentinel;
    base[i] = splat_cells (in[i].prev_min);
    jump[i] = splat_cells (in[i].prev_min + in[i].p2);
  }
  for (int k = 0; k < f->padded; k += CELLS) {
    const vcell cost = load_costs (c + k);
    const bool last = k + CELLS >= f->padded;
    CellSums acc = { };
    vcell o[MAX_SWEEP_PATHS];
    for (int i = 0; i < n; i++) {
      const cell *prev = in[i].prev + k;
      const vcell best = min_cells (min_cells (load_cells (prev),
              load_cells (prev - 1) + p1), min_cells (load_cells (prev + 1) +
              p1, jump[i]));
      o[i] = cost + best - base[i];
      if (last)
        o[i] = (o[i] & f->tail) | (sentinel & ~f->tail);
      store_cells (out[i] + k, o[i]);
      least[i] = min_cells (least[i], o[i]);
      /* each pair as soon as it is there, which keeps two live */
      if (role != ROW_ALONE && (i % 2 == 1 || i + 1 == n))
        add_cell_pair (&acc, o[i - i % 2], i % 2 ? o[i] : (vcell) { });
    }
    if (role == ROW_ALONE)
      continue;
    sums_in_order (&acc);
    /* with uint8 cells the last vector's upper half may be padding alone,
     * which has no sums */
    for (int h = 0; h < SUM_VECTORS && k + h * LANES < f->summed; h++) {
      const int ks = k + h * LANES;
      if (role == ROW_FIRST) {
        store_streamed (partial + ks, acc.v[h]);
      } else if (role == ROW_SECOND) {
        vu first;
        memcpy (&first, partial + ks, sizeof (first));
        add_sums (f, ps, ks, acc.v[h] + first);
      }
    }
  }
  for (int i = 0; i < n; i++)
    out_min[i] = min_of_cells (least[i]);
}

static int
p2_between (const Frame * f, size_t pix, size_t prev_pix)
{
  return f->p2_of_step[abs ((int) f->guide[pix] - (int) f->guide[prev_pix])];
}

/* A thread's progress through its columns of a sweep, on a cache line of
 * its own: the rows it has finished, and the rows whose first pixel it has
 * done. */
typedef struct
{
  atomic_int rows_done;
  atomic_int firsts_done;
  char pad[64 - 2 * sizeof (atomic_int)];
} Progress;

static inline void
cpu_relax (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#elif defined(__aarch64__)
  __asm__ volatile ("yield");
#endif
}

/* Waits until *counter reaches value.  A neighbour's row takes
 * microseconds, so it spins a while, then gives the core away: with more
 * threads than cores the neighbour may be waiting for one. */
static void
wait_for (atomic_int * counter, int value)
{
  for (int spins = 0;
      atomic_load_explicit (counter, memory_order_acquire) < value; spins++) {
    if (spins < 256)
      cpu_relax ();
    else
      sched_yield ();
  }
}

/* The left disparity of pixel x of frame row y from its summed costs, as
 * sd_cpu_wta gives it. */
static void
read_out_pixel (const Frame * f, const PixelSums * ps, int y, int x)
{
  const size_t pix = (size_t) y * f->width + x;
  uint8_t *m = f->margin ? f->margin + pix : NULL;
  if (x < f->p->min_disparity) {
    /* no disparity of the range points inside the right image */
    f->disp[pix] = SD_DISP_INVALID;
    if (m)
      *m = 0;
    return;
  }
  const uint16_t smallest = (uint16_t) hmin (ps->least);
  int best = 0;
  while (ps->sums[best] != smallest)
    best++;
  f->disp[pix] = sd_cpu_wta_value (f->p, ps->sums, best, m);
}

/* Pixels [ja, jb) of row i of a sweep's band (j and i count columns and
 * rows in the sweep's order), every path of paths[0 .. n) advanced at each
 * pixel; the pixel's partial sum goes to the band's sums or is read out
 * with them (r, the thread's), as the row's role says.  The right view's
 * candidates: right pixel xr takes the first smallest of the sums of left
 * pixels xr + dmin + k at index k, so left pixel x offers index k to xr =
 * x - dmin - k, and with the right pixels stored backwards (slot width - 1
 * - xr) its D offers land on consecutive slots, compared and kept as
 * vectors.  The horizontal path comes from the thread's own blocks
 * (from_own) or from the row (the column before is another thread's, or
 * none), and goes to its own blocks (to_own) or to the row (for the thread
 * after); n, from_own and to_own are constants where this is inlined. */
static inline __attribute__((always_inline)) void
pixels (const Frame * f, int n, const Path * paths, RowRole role,
    const ReadOutRows * ro, int i, int ja, int jb, bool from_own, bool to_own)
{
  /* the row's pointers, in locals that no store in the loop can change:
   * read from paths at each pixel, they cost a frame on two threads about
   * a tenth more (docs/performance.md) */
  struct
  {
    const cell *prev;
    cell *cur;
    const int *prev_min;
    int *cur_min;
    bool first;                 /* the path starts on this row */
  } row[MAX_SWEEP_PATHS];
  const int w = f->width, h = f->height, dy = paths[1].dy, dx = paths[0].dx;
  const int y = dy > 0 ? f->y0 + i : f->y0 + f->rows - 1 - i;
  const size_t band_row = (size_t) (y - f->y0) * w;
  /* a row's path costs go to the slot of its frame row's parity, so that
   * they carry from band to band */
  for (int r = 0; r < n; r++) {
    const int from = (y - paths[r].dy) & 1;
    row[r].prev = paths[r].rows[from];
    row[r].cur = paths[r].rows[y & 1];
    row[r].prev_min = paths[r].mins[from];
    row[r].cur_min = paths[r].mins[y & 1];
    row[r].first = y - paths[r].dy < 0 || y - paths[r].dy >= h;
  }
  cell *const own[2] = { paths[0].own[0], paths[0].own[1] };
  const bool adaptive = sd_params_p2_adaptive (f->p);
  for (int j = ja; j < jb; j++) {
    const int x = dx > 0 ? j : w - 1 - j;
    const size_t pix = (size_t) y * w + x;
    const size_t in_band = band_row + x;
    StepIn in[MAX_SWEEP_PATHS];
    cell *out[MAX_SWEEP_PATHS];
    int out_min[MAX_SWEEP_PATHS];
    for (int r = 0; r < n; r++) {
      const int pdx = paths[r].dx, pdy = paths[r].dy, px = x - pdx;
      const bool first = px < 0 || px >= w || row[r].first;
      in[r].p2 = first || !adaptive ? f->p->p2 :
          p2_between (f, pix, (size_t) (y - pdy) * w + px);
      if (first) {
        in[r].prev = f->zeros + 1;
        in[r].prev_min = 0;
      } else {
        in[r].prev = (r == 0 && from_own ? own[(j - 1) & 1] :
            row[r].prev + (size_t) px * f->block) + 1;
        in[r].prev_min = row[r].prev_min[px];
      }
      out[r] = (r == 0 && to_own ? own[j & 1] :
          row[r].cur + (size_t) x * f->block) + 1;
    }
    if (j + COSTS_AHEAD < jb)
      prefetch_bytes (f->cost + (in_band + (dx > 0 ? COSTS_AHEAD :
                  -COSTS_AHEAD)) * f->D, f->D);
    PixelSums ps = { NULL };
    if (role == ROW_SECOND) {
      if (j + SUMS_AHEAD < jb)
        prefetch_bytes (f->sum + (in_band + (dx > 0 ? SUMS_AHEAD :
                    -SUMS_AHEAD)) * f->summed, f->summed * sizeof (uint16_t));
      ps.sums = ro->sums;
      ps.least = (vu) { } + (uint16_t) 0xFFFF;
      ps.backwards = dx < 0;
      if (f->right && x >= f->p->min_disparity) {
        const size_t slot = (size_t) (w - 1 - x + f->p->min_disparity);
        ps.right = (RightRow) {
        ro->right.least + slot, ro->right.index + slot};
      }
    }
    pixel_step (f, n, role, f->cost + in_band * f->D, in, out, out_min,
        f->sum + in_band * f->summed, &ps);
    for (int r = 0; r < n; r++)
      row[r].cur_min[x] = out_min[r];
    if (role == ROW_SECOND)
      read_out_pixel (f, &ps, y, x);
  }
}

/* What frame row y is to the down sweep (down) or the up sweep. */
static RowRole
row_role (const Frame * f, bool down, int y)
{
  if (!f->reads_out)
    return ROW_ALONE;
  return (y < f->mid) == down ? ROW_FIRST : ROW_SECOND;
}

/* The slots of the right view's candidates that columns [j0, j1) of a
 * sweep offer to (see pixels): [*lo, *hi), empty where none. */
static void
offered_slots (const Frame * f, bool down, int j0, int j1, int *lo, int *hi)
{
  const int w = f->width, dmin = f->p->min_disparity;
  const int xb = down ? j1 - 1 : w - 1 - j0;
  int xa = down ? j0 : w - j1;
  if (xa < dmin)
    xa = dmin;
  *lo = xa > xb ? 0 : w - 1 - xb + dmin;
  *hi = xa > xb ? 0 : w - 1 - xa + dmin + f->summed;
}

/* A thread's right candidates of frame row y, slots [lo, hi), into the
 * row's: the smaller sum, of equal sums the smaller index. */
static void
merge_right (const Frame * f, const ReadOutRows * ro, int y, int lo, int hi)
{
  const size_t at = (size_t) (y - f->y0) * (f->width + f->summed);
  uint16_t *least = f->right_rows.least + at;
  uint16_t *index = f->right_rows.index + at;
  for (int i = lo; i < hi; i++) {
    const uint16_t l = ro->right.least[i], k = ro->right.index[i];
    if (l < least[i] || (l == least[i] && k < index[i])) {
      least[i] = l;
      index[i] = k;
    }
  }
}

/* Columns [j0, j1) of every row of a sweep.
 *
 * The threads of a sweep run as a wavefront.  A row's first pixel continues
 * the horizontal path and one diagonal from the column before, the last
 * column of the thread before, which must have finished the row; its last
 * pixel continues the other diagonal from the previous row's column after,
 * the first of the thread after.  That wait also keeps a thread from
 * overwriting, two rows on, a slot its neighbour has yet to read.  So each
 * thread runs a row behind the one before it, all of them busy but in the
 * first rows.  The threads therefore also merge their right candidates of
 * a row one after the other.
 *
 * A row the sweep reaches second waits for the other sweep's last thread
 * (other, when the two run side by side) to have done it: by then every
 * thread of that sweep has.  Neither sweep waits for the other before its
 * own first half, so neither waits for ever. */
static inline __attribute__((always_inline)) void
sweep (const Frame * f, int n, const Path * paths, const ReadOutRows * ro,
    int j0, int j1, Progress * before, Progress * self, Progress * after,
    Progress * other)
{
  const bool down = paths[1].dy > 0;
  int lo, hi;
  offered_slots (f, down, j0, j1, &lo, &hi);
  for (int i = 0; i < f->rows; i++) {
    const int y = down ? f->y0 + i : f->y0 + f->rows - 1 - i;
    const RowRole role = row_role (f, down, y);
    if (role == ROW_SECOND) {
      if (other)
        wait_for (&other->rows_done, down ? f->rows - (y - f->y0) :
            y - f->y0 + 1);
      for (int k = lo; f->right && k < hi; k++) {
        ro->right.least[k] = 0xFFFF;
        ro->right.index[k] = 0;
      }
    }
    if (before)
      wait_for (&before->rows_done, i + 1);
    if (j1 - j0 == 1) {
      if (after)
        wait_for (&after->firsts_done, i);
      pixels (f, n, paths, role, ro, i, j0, j1, false, false);
      atomic_store_explicit (&self->firsts_done, i + 1,
          memory_order_release);
    } else {
      pixels (f, n, paths, role, ro, i, j0, j0 + 1, false, true);
      atomic_store_explicit (&self->firsts_done, i + 1,
          memory_order_release);
      pixels (f, n, paths, role, ro, i, j0 + 1, j1 - 1, true, true);
      if (after)
        wait_for (&after->firsts_done, i);
      pixels (f, n, paths, role, ro, i, j1 - 1, j1, true, false);
    }
    if (role == ROW_SECOND && f->right)
      merge_right (f, ro, y, lo, hi);
    if (role == ROW_FIRST)
      /* the other sweep reads the row's sums once the row is done */
      streamed_stores_done ();
    atomic_store_explicit (&self->rows_done, i + 1, memory_order_release);
  }
}

static int
padded (int D)
{
  return (D + CELLS - 1) / CELLS * CELLS;
}

static int
summed (int D)
{
  return (D + LANES - 1) / LANES * LANES;
}

/* The rows of the partial sums: a band's, or the frame's. */
static int
sgm_rows (int height, int band_rows)
{
  return sd_band_count (height, band_rows) > 1 ? band_rows : height;
}

/* The values of a RightRow. */
static size_t
right_row_values (const SdParams * p, int width)
{
  return 2 * ((size_t) width + summed (p->num_disparities));
}

/* The values of a thread's ReadOutRows. */
static size_t
read_out_row_values (const SdParams * p, int width)
{
  return summed (p->num_disparities) + right_row_values (p, width);
}

/* The workspace: the first sweep's partial sums (a band's rows), the right
 * candidates of the band's rows, each sweep's path rows, the up sweep's
 * path rows kept at the band edges, a block of zeros, a summed row per
 * thread for the read-out and a progress per thread for the sweeps.
 * Carves it from base, or only counts its bytes when base is NULL. */
typedef struct
{
  uint16_t *sum;
  uint16_t *right_rows;         /* RightRow per band row */
  cell *blocks[2];              /* per sweep: 2 rows a path */
  int *mins[2];                 /* per sweep: 2 rows a path */
  cell *kept_blocks;            /* per band edge: a row a vertical up path */
  int *kept_mins;
  cell *zeros;
  uint16_t *rows;               /* ReadOutRows per thread */
  Progress *progress;           /* per thread */
  cell *own;                    /* per thread: Path.own */
} Workspace;

/* The values of a thread's Path.own: two blocks, on cache lines no other
 * thread writes. */
static size_t
own_values (size_t block)
{
  return (2 * block * sizeof (cell) + 63) / 64 * 64 / sizeof (cell);
}

/* The rows of a path kept at one band edge: its vertical up paths'. */
#define KEPT_PATHS (MAX_SWEEP_PATHS - 1)

static size_t
carve (const SdParams * p, int width, int height, int band_rows, void *base,
    Workspace * ws)
{
  const size_t block = padded (p->num_disparities) + 2;
  const size_t blocks = 2 * MAX_SWEEP_PATHS * (size_t) width;
  const size_t mins = 2 * MAX_SWEEP_PATHS * (size_t) width;
  const size_t threads = (size_t) sd_fast_threads (p);
  const int bands = sd_band_count (height, band_rows);
  const size_t rows = (size_t) sgm_rows (height, band_rows);
  const size_t kept = (size_t) (bands - 1) * KEPT_PATHS * width;
  const size_t sizes[] = {
    (size_t) width * rows * summed (p->num_disparities) * sizeof (uint16_t),
    rows * right_row_values (p, width) * sizeof (uint16_t),
    blocks * block * sizeof (cell), blocks * block * sizeof (cell),
    mins * sizeof (int), mins * sizeof (int),
    kept * block * sizeof (cell), kept * sizeof (int),
    block * sizeof (cell),
    threads * read_out_row_values (p, width) * sizeof (uint16_t),
    threads * sizeof (Progress),
    threads * own_values (block) * sizeof (cell),
  };
  void **parts[] = {
    (void **) &ws->sum, (void **) &ws->right_rows,
    (void **) &ws->blocks[0], (void **) &ws->blocks[1],
    (void **) &ws->mins[0], (void **) &ws->mins[1],
    (void **) &ws->kept_blocks, (void **) &ws->kept_mins,
    (void **) &ws->zeros, (void **) &ws->rows, (void **) &ws->progress,
    (void **) &ws->own,
  };
  size_t total = 0;
  for (size_t i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++) {
    if (base)
      *parts[i] = (char *) base + total;
    /* every part starts on a 64-byte line */
    total += (sizes[i] + 63) / 64 * 64;
  }
  return total;
}

size_t
CELLS_FN (sd_fast_sgm_workspace_bytes) (const SdParams * p, int width,
    int height, int band_rows)
{
  Workspace ws;
  return carve (p, width, height, band_rows, NULL, &ws) + 64;
}

/* The paths of sweep s (0 down, 1 up) in the workspace: the reference's
 * directions (common/cpu/sgm.c), the first four of them with 4 paths. */
static int
sweep_paths (const Frame * f, const Workspace * ws, int s, Path * paths)
{
  static const int dxs[2][MAX_SWEEP_PATHS] = { {1, 0, 1, -1}, {-1, 0, 1, -1}
  };
  const int n = f->p->paths == 8 ? 4 : 2, dy = s == 0 ? 1 : -1;
  const size_t row = (size_t) f->width;
  for (int r = 0; r < n; r++) {
    paths[r].dx = dxs[s][r];
    paths[r].dy = r == 0 ? 0 : dy;
    for (int parity = 0; parity < 2; parity++) {
      paths[r].rows[parity] = ws->blocks[s] + (2 * r + parity) * row * f->block;
      paths[r].mins[parity] = ws->mins[s] + (2 * r + parity) * row;
    }
  }
  return n;
}

/* The columns a thread of a sweep takes at least: each row of a range ends
 * in a hand-over between neighbours, which this keeps a small part of the
 * row's work. */
#define MIN_COLUMNS 32

static void
edge_sentinels (const Frame * f, cell * block)
{
  block[0] = block[f->block - 1] = (cell) f->sentinel;
}

static ReadOutRows
read_out_rows (const Frame * f, const Workspace * ws, int thread)
{
  uint16_t *base = ws->rows + (size_t) thread * read_out_row_values (f->p,
      f->width);
  const size_t right = (size_t) f->width + f->summed;
  return (ReadOutRows) {
  base, {
  base + f->summed, base + f->summed + right}};
}

/* Thread k of the count that run sweep s, thread t of the team; progress
 * holds the count's, other the other sweep's last thread's where the two
 * run side by side. */
static void
run_sweep (const Frame * f, const Workspace * ws, int s, int k, int count,
    Progress * progress, int t, Progress * other)
{
  Path paths[MAX_SWEEP_PATHS];
  const int n = sweep_paths (f, ws, s, paths), w = f->width;
  const int j0 = (int) ((long) k * w / count);
  const int j1 = (int) ((long) (k + 1) * w / count);
  /* a step writes lanes 1 .. padded of its block before any step reads
   * them; the two lanes outside, which the k - 1 and k + 1 reads reach,
   * start as sentinels and stay so.  Neighbours read the thread's blocks
   * only once it has said so. */
  for (int parity = 0; parity < 2; parity++) {
    paths[0].own[parity] = ws->own + t * own_values (f->block) +
        parity * f->block;
    edge_sentinels (f, paths[0].own[parity]);
  }
  for (int r = 0; r < n; r++)
    for (int parity = 0; parity < 2; parity++)
      for (int j = j0; j < j1; j++) {
        const int x = paths[0].dx > 0 ? j : w - 1 - j;
        edge_sentinels (f, paths[r].rows[parity] + (size_t) x * f->block);
      }
  Progress *self = &progress[k];
  Progress *before = k > 0 ? &progress[k - 1] : NULL;
  Progress *after = k + 1 < count ? &progress[k + 1] : NULL;
  const ReadOutRows ro = read_out_rows (f, ws, t);
  if (n == 4)
    sweep (f, 4, paths, &ro, j0, j1, before, self, after, other);
  else
    sweep (f, 2, paths, &ro, j0, j1, before, self, after, other);
}

/* The sweeps over the frame's band: both (down and up side by side,
 * reading the band out), or the up sweep alone on every thread. */
static void
run_sweeps (const Frame * f, const Workspace * ws, bool both)
{
  const int threads = sd_fast_threads (f->p);
  const int most = (both ? 2 : 1) * (f->width / MIN_COLUMNS > 1 ?
      f->width / MIN_COLUMNS : 1);
  for (int t = 0; t < threads; t++) {
    atomic_init (&ws->progress[t].rows_done, 0);
    atomic_init (&ws->progress[t].firsts_done, 0);
  }
#pragma omp parallel num_threads (threads < most ? threads : most)
  {
    int t = 0, team = 1;
#ifdef _OPENMP
    t = omp_get_thread_num ();
    team = omp_get_num_threads ();
#endif
    /* the first half of the team (the larger) sweeps down, the rest up,
     * each the first to reach its half of the band's rows; a team of one
     * sweeps both ways, one after the other, down first everywhere */
    const int down = (team + 1) / 2;
    Frame band = *f;
    band.reads_out = both;
    band.mid = team == 1 ? f->y0 + f->rows : f->y0 + f->rows / 2;
    if (!both) {
      run_sweep (&band, ws, 1, t, team, ws->progress, t, NULL);
    } else if (team == 1) {
      run_sweep (&band, ws, 0, 0, 1, ws->progress, t, NULL);
      run_sweep (&band, ws, 1, 0, 1, ws->progress, t, NULL);
    } else if (t < down) {
      run_sweep (&band, ws, 0, t, down, ws->progress, t,
          &ws->progress[team - 1]);
    } else {
      run_sweep (&band, ws, 1, t - down, team - down, ws->progress + down, t,
          &ws->progress[down - 1]);
    }
  }
}

/* The right disparities of the band's rows, as sd_cpu_right_disparity
 * gives them, from the candidates the sweeps kept. */
static void
right_disparities (const Frame * f, int16_t * right_disp)
{
  const int w = f->width, dmin = f->p->min_disparity;
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (f->p))
  for (int y = f->y0; y < f->y0 + f->rows; y++) {
    const uint16_t *index = f->right_rows.index + (size_t) (y - f->y0) *
        (w + f->summed);
    for (int xr = 0; xr < w; xr++)
      right_disp[(size_t) y * w + xr] = sd_right_candidates (f->p, w,
          xr) == 0 ? SD_DISP_INVALID : (int16_t) (dmin + index[w - 1 - xr]);
  }
}

/* Band k of the frame: its rows, and its costs from cost_rows. */
static void
set_band (Frame * f, int band_rows, int k, SdCostRows cost_rows,
    void *cost_user)
{
  const SdBand b = sd_band_get (f->height, band_rows, k);
  f->y0 = b.keep_y0;
  f->rows = b.keep_height;
  f->cost = cost_rows (cost_user, f->y0, f->rows);
}

/* Copies the up sweep's vertical path rows of frame row y, the top of
 * band e + 1, to or from edge slot e of the kept rows. */
static void
keep_edge (const Frame * f, const Workspace * ws, int e, int y, bool restore)
{
  Path paths[MAX_SWEEP_PATHS];
  const int n = sweep_paths (f, ws, 1, paths);
  const size_t w = (size_t) f->width;
  for (int r = 1; r < n; r++) {
    const size_t slot = (size_t) e * KEPT_PATHS + (size_t) (r - 1);
    cell *kept_blocks = ws->kept_blocks + slot * w * f->block;
    int *kept_mins = ws->kept_mins + slot * w;
    cell *blocks = paths[r].rows[y & 1];
    int *mins = paths[r].mins[y & 1];
    const size_t block_bytes = w * f->block * sizeof (cell);
    if (restore) {
      memcpy (blocks, kept_blocks, block_bytes);
      memcpy (mins, kept_mins, w * sizeof (int));
    } else {
      memcpy (kept_blocks, blocks, block_bytes);
      memcpy (kept_mins, mins, w * sizeof (int));
    }
  }
}

void
CELLS_FN (sd_fast_sgm) (const SdParams * p, SdCostRows cost_rows,
    void *cost_user, const uint8_t * guide, int16_t * disp, uint8_t * margin,
    int16_t * right_disp, void *workspace, int width, int height,
    int band_rows)
{
  Workspace ws;
  carve (p, width, height, band_rows, (void *) (((uintptr_t) workspace +
              63) & ~63), &ws);
  Frame f = {
    .p = p,.guide = guide,.width = width,.height = height,
    .D = p->num_disparities,.padded = padded (p->num_disparities),
    .summed = summed (p->num_disparities),
    .zeros = ws.zeros,.sum = ws.sum,.disp = disp,.margin = margin,
    .right = sd_params_lr_check (p) != SD_LR_CHECK_OFF,
    .sentinel = SD_SGM_CELL_BYTES == 1 ? 255 - p->p1 : 0x4000,
  };
  f.block = f.padded + 2;
  /* a band row's candidates: the smallest sums, then their indices */
  const size_t right_row = (size_t) width + f.summed;
  f.right_rows = (RightRow) {
  ws.right_rows, ws.right_rows + (size_t) sgm_rows (height, band_rows) *
        right_row};
  for (int i = 0; i < CELLS; i++)
    f.tail[i] = (f.padded - CELLS + i) < f.D ? (cell) ~0 : 0;
  for (int i = 0; i < LANES; i++)
    f.lane[i] = (uint16_t) i;
  for (int i = 0; i < f.block; i++)
    ws.zeros[i] = i >= 1 && i <= f.D ? 0 : (cell) f.sentinel;
  for (int i = 0; i < SD_GUIDE_STEPS; i++)
    f.p2_of_step[i] = sd_cpu_penalty2 (p, i);

  /* the up paths that enter each band from the one below: edge e is the
   * top of band e + 1 */
  const int bands = sd_band_count (height, band_rows);
  for (int k = bands - 1; k > 0; k--) {
    set_band (&f, band_rows, k, cost_rows, cost_user);
    run_sweeps (&f, &ws, false);
    keep_edge (&f, &ws, k - 1, f.y0, false);
  }
  for (int k = 0; k < bands; k++) {
    set_band (&f, band_rows, k, cost_rows, cost_user);
    if (k + 1 < bands)
      keep_edge (&f, &ws, k, f.y0 + f.rows, true);
    if (f.right) {
      const size_t values = (size_t) f.rows * right_row * sizeof (uint16_t);
      memset (f.right_rows.least, 0xFF, values);
      memset (f.right_rows.index, 0, values);
    }
    run_sweeps (&f, &ws, true);
    if (f.right)
      right_disparities (&f, right_disp);
  }
}

#if SD_SGM_CELL_BYTES == 2
/* Whether the sweeps take uint8 cells: where they give the same path
 * costs (see the top: the largest cost plus P2, the adaptive one being at
 * most P2, plus P1 at most 255; the defaults' census-ad costs with P1 40
 * and P2 128 fit), and where a pixel's cells take fewer vectors than as
 * int16 (all D above LANES).  A sweep's time goes with its vectors: with
 * AVX-512 uint8 cells were faster at 80 and 160 disparities too (128 and
 * 192 cells against 96 and 160), once their sums were taken two paths at a
 * time (docs/performance.md). */
static bool
cells8_fit (const SdParams * p)
{
  const int D = p->num_disparities;
  const int vectors16 = (D + LANES - 1) / LANES;
  const int vectors8 = (D + 2 * LANES - 1) / (2 * LANES);
  return sd_cost_max (p) + p->p2 + p->p1 <= 255 && vectors8 < vectors16;
}

size_t
SD_FAST (sd_fast_sgm_workspace_bytes) (const SdParams * p, int width,
    int height, int band_rows)
{
  return cells8_fit (p) ?
      SD_FAST (sd_fast_sgm_workspace_bytes_cells8) (p, width, height,
      band_rows) : SD_FAST (sd_fast_sgm_workspace_bytes_cells16) (p, width,
      height, band_rows);
}

void
SD_FAST (sd_fast_sgm) (const SdParams * p, SdCostRows cost_rows,
    void *cost_user, const uint8_t * guide, int16_t * disp, uint8_t * margin,
    int16_t * right_disp, void *workspace, int width, int height,
    int band_rows)
{
  (cells8_fit (p) ? SD_FAST (sd_fast_sgm_cells8) :
      SD_FAST (sd_fast_sgm_cells16)) (p, cost_rows, cost_user, guide, disp,
      margin, right_disp, workspace, width, height, band_rows);
}

const SdCpuStages SD_FAST (sd_fast_stages) = {
  .isa = SD_FAST_NAME_OF_ISA,
  .workspace_bytes = SD_FAST (sd_fast_sgm_workspace_bytes),
  .census = SD_FAST (sd_fast_census),
  .cost_volume = SD_FAST (sd_fast_cost_volume),
  .sgm = SD_FAST (sd_fast_sgm),
  .median_disparity = SD_FAST (sd_fast_median_disparity),
  .hbp_workspace_bytes = SD_FAST (sd_fast_hbp_workspace_bytes),
  .hbp = SD_FAST (sd_fast_hbp),
  .tiled_bp_workspace_bytes = SD_FAST (sd_fast_tiled_bp_workspace_bytes),
  .tiled_bp = SD_FAST (sd_fast_tiled_bp),
  .tiled_bp_arithmetic = &SD_FAST (sd_fast_tiled_bp_arithmetic),
  .guided_median = SD_FAST (sd_fast_guided_median),
  .temporal_row = SD_FAST (sd_fast_temporal_row),
  .rectify_rows = SD_FAST (sd_fast_rectify_rows),
  .rectify16_rows = SD_FAST (sd_fast_rectify16_rows),
};
#endif
