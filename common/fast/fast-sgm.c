/* Fast SGM aggregation: common/cpu/sgm.c's sums, bit for bit.
 *
 * A path's costs for one pixel are kept as int16 lanes, 16 to a vector,
 * in a block of the disparity count rounded up to 16 with one slot on each
 * side.  Every lane that stands for no disparity (the slot before k = 0,
 * the rounding, the slot after) holds SENTINEL, so that the step reads
 * prev[k - 1] and prev[k + 1] as whole shifted vectors and never takes them.
 * No value overflows int16: a path cost is at most the largest cost plus
 * P2 (255 + 4095), SENTINEL + P1 stays below 32768, and the sums wrap as
 * the reference's uint16 sums do.
 *
 * Threads take whole paths (rows, columns, diagonals): the paths of one
 * direction do not depend on each other.  An earlier version spread each
 * row of a vertical path over the threads, with a barrier per row; with
 * more threads than free cores (a parallel sweep, a busy pipeline) the
 * spinning barriers made it 20 times slower than one thread. */
#include "sd-fast.h"

#include <stdlib.h>
#include <string.h>

/* GCC warns that 32-byte vectors passed by value change the ABI without
 * AVX: every function that does so here is static and inlined */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#define SD_FAST_STR2(x) #x
#define SD_FAST_STR(x) SD_FAST_STR2 (x)
#define SD_FAST_NAME_OF_ISA SD_FAST_STR (SD_FAST_ISA)

#define LANES 16
#define SENTINEL 0x4000

typedef int16_t v16 __attribute__((vector_size (LANES * 2)));
typedef uint8_t v16b __attribute__((vector_size (LANES)));

typedef struct
{
  int dx, dy;
} Direction;

/* The reference's order (common/cpu/sgm.c): the first four are the 4-path
 * set.  The sums do not depend on it (uint16 addition). */
static const Direction directions[8] = {
  {1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1},
};

static inline v16
load (const int16_t * p)
{
  v16 v;
  memcpy (&v, p, sizeof (v));
  return v;
}

static inline void
store (int16_t * p, v16 v)
{
  memcpy (p, &v, sizeof (v));
}

static inline v16
load_cost (const uint8_t * c)
{
  v16b b;
  memcpy (&b, c, sizeof (b));
  return __builtin_convertvector (b, v16);
}

static inline v16
vmin (v16 a, v16 b)
{
  const v16 a_less = (v16) (a < b);
  return (a & a_less) | (b & ~a_less);
}

static inline v16
splat (int v)
{
  return (v16) { } + (int16_t) v;
}

typedef int16_t v8 __attribute__((vector_size (16)));
typedef int16_t v4 __attribute__((vector_size (8)));

/* The smallest lane, by halving: the compiler turns the copies of halves
 * into lane extractions (a loop over the lanes cost a fifth of the step) */
static inline int
hmin (v16 v)
{
  v8 a, b;
  memcpy (&a, &v, sizeof (a));
  memcpy (&b, (const char *) &v + sizeof (a), sizeof (b));
  const v8 m8 = (a & (v8) (a < b)) | (b & ~(v8) (a < b));
  v4 c, d;
  memcpy (&c, &m8, sizeof (c));
  memcpy (&d, (const char *) &m8 + sizeof (c), sizeof (d));
  const v4 m4 = (c & (v4) (c < d)) | (d & ~(v4) (c < d));
  int m = m4[0];
  for (int i = 1; i < 4; i++)
    if (m4[i] < m)
      m = m4[i];
  return m;
}

/* What one aggregation needs to know of the frame. */
typedef struct
{
  const SdParams *p;
  const uint8_t *cost;
  const uint8_t *guide;
  uint16_t *sum;
  int width, height, D;
  int padded;                   /* D rounded up to LANES */
  int block;                    /* padded + 2: a pixel's path costs */
  v16 tail;                     /* lanes of the last vector that are disparities */
} Frame;

/* Path costs of pixel pix into out (block + 1) and its smallest one into
 * *out_min, from the previous pixel's (prev, prev_min; NULL for the first
 * pixel of the path), and added to the sum. */
static inline __attribute__((always_inline)) void
step (const Frame * f, size_t pix, int p2, const int16_t * prev,
    int prev_min, int16_t * out, int *out_min)
{
  const uint8_t *c = f->cost + pix * f->D;
  uint16_t *s = f->sum + pix * f->D;
  const v16 p1 = splat (f->p->p1), jump = splat (prev_min + p2),
      base = splat (prev_min), sentinel = splat (SENTINEL);
  v16 least = sentinel;
  for (int k = 0; k < f->padded; k += LANES) {
    v16 o = load_cost (c + k);
    if (prev) {
      const v16 best = vmin (vmin (load (prev + k), load (prev + k - 1) + p1),
          vmin (load (prev + k + 1) + p1, jump));
      o = o + best - base;
    }
    if (k + LANES > f->D)
      o = (o & f->tail) | (sentinel & ~f->tail);
    store (out + k, o);
    least = vmin (least, o);
    if (k + LANES <= f->D) {
      /* uint16 wrap-around, as the reference adds */
      int16_t *sk = (int16_t *) (s + k);
      store (sk, load (sk) + o);
    } else {
      /* the next pixel's sums follow: another thread may be adding them */
      for (int i = 0; k + i < f->D; i++)
        s[k + i] = (uint16_t) (s[k + i] + (uint16_t) o[i]);
    }
  }
  *out_min = hmin (least);
}

/* An empty block: every lane a sentinel. */
static void
block_init (int16_t * b, int block)
{
  for (int i = 0; i < block; i++)
    b[i] = SENTINEL;
}

static int
p2_between (const Frame * f, size_t pix, size_t prev_pix)
{
  return sd_cpu_penalty2 (f->p, abs ((int) f->guide[pix] -
          (int) f->guide[prev_pix]));
}

/* How many paths of direction dir cross the image: one starts at every
 * pixel whose predecessor lies outside it. */
static int
line_count (const Frame * f, Direction dir)
{
  if (dir.dy == 0)
    return f->height;
  if (dir.dx == 0)
    return f->width;
  return f->width + f->height - 1;
}

/* The first pixel of path i: along the entry row, then down the entry
 * column (without its corner, which the row has). */
static void
line_start (const Frame * f, Direction dir, int i, int *x, int *y)
{
  const int entry_x = dir.dx >= 0 ? 0 : f->width - 1;
  const int entry_y = dir.dy >= 0 ? 0 : f->height - 1;
  if (dir.dy != 0 && i < f->width) {
    *x = i;
    *y = entry_y;
    return;
  }
  if (dir.dy != 0)
    i -= f->width - 1;          /* past the corner */
  *x = entry_x;
  *y = dir.dy == 0 ? i : dir.dy > 0 ? i : f->height - 1 - i;
}

/* Every path of one direction is independent of the others, so threads
 * take whole paths and meet only once, at the end (a pixel lies on one
 * path of each direction: no two threads add to the same sums). */
static void
aggregate_direction (const Frame * f, Direction dir, int16_t * scratch)
{
  const int lines = line_count (f, dir);
#pragma omp parallel num_threads (sd_fast_threads (f->p))
  {
    int thread = 0;
#ifdef _OPENMP
    thread = omp_get_thread_num ();
#endif
    int16_t *a = scratch + (size_t) thread * 2 * f->block;
    int16_t *b = a + f->block;
    block_init (a, 2 * f->block);
#pragma omp for schedule(dynamic, 8)
    for (int i = 0; i < lines; i++) {
      int16_t *prev = a, *cur = b;
      int prev_min = 0, x, y;
      line_start (f, dir, i, &x, &y);
      for (bool first = true; x >= 0 && x < f->width && y >= 0
          && y < f->height; x += dir.dx, y += dir.dy, first = false) {
        const size_t pix = (size_t) y * f->width + x;
        const int p2 = first ? 0 : p2_between (f, pix,
            (size_t) (y - dir.dy) * f->width + (x - dir.dx));
        step (f, pix, p2, first ? NULL : prev + 1, prev_min, cur + 1,
            &prev_min);
        int16_t *t = prev;
        prev = cur;
        cur = t;
      }
    }
  }
}

static int
padded (int D)
{
  return (D + LANES - 1) / LANES * LANES;
}

size_t
SD_FAST (sd_fast_sgm_scratch_bytes) (const SdParams * p, int width)
{
  (void) width;
  /* two blocks a thread: the path's previous pixel and its current one */
  return 2 * (size_t) (padded (p->num_disparities) + 2) * sizeof (int16_t) *
      sd_fast_threads (p);
}

void
SD_FAST (sd_fast_sgm) (const SdParams * p, const uint8_t * cost, const uint8_t * guide,
    uint16_t * sum, uint16_t * scratch, int width, int height)
{
  Frame f = {
    .p = p,.cost = cost,.guide = guide,.sum = sum,.width = width,
    .height = height,.D = p->num_disparities,
    .padded = padded (p->num_disparities),
  };
  f.block = f.padded + 2;
  for (int i = 0; i < LANES; i++)
    f.tail[i] = (f.padded - LANES + i) < f.D ? -1 : 0;
  memset (sum, 0, sizeof (uint16_t) * (size_t) width * height * f.D);
  for (int r = 0; r < p->paths; r++)
    aggregate_direction (&f, directions[r], (int16_t *) scratch);
}

void
SD_FAST (sd_fast_wta) (const SdParams * p, const uint16_t * sum, int16_t * disp,
    int width, int height)
{
  const size_t row = (size_t) width * p->num_disparities;
  /* every pixel stands alone: the reference, a row at a time */
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++)
    sd_cpu_wta (p, sum + y * row, disp + (size_t) y * width, width, 1);
}

void
SD_FAST (sd_fast_right_disparity) (const SdParams * p, const uint16_t * sum,
    int16_t * right_disp, int width, int height)
{
  const size_t row = (size_t) width * p->num_disparities;
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++)
    sd_cpu_right_disparity (p, sum + y * row, right_disp + (size_t) y * width,
        width, 1);
}

const SdSgmStages SD_FAST (sd_fast_stages) = {
  .isa = SD_FAST_NAME_OF_ISA,
  .scratch_bytes = SD_FAST (sd_fast_sgm_scratch_bytes),
  .cost_volume = SD_FAST (sd_fast_cost_volume),
  .aggregate = SD_FAST (sd_fast_sgm),
  .wta = SD_FAST (sd_fast_wta),
  .right_disparity = SD_FAST (sd_fast_right_disparity),
};
