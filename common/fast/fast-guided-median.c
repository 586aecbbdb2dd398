/* The guided median (sd_cpu_guided_median), the same values with vectors:
 * LANES / 2 pixels of a row at once, one 32-bit key per sample and pixel,
 * rows over threads.
 *
 * A sample's key is value << SD_GUIDED_MEDIAN_WEIGHT_BITS | weight, and 0
 * for a hole: it sorts first and weighs nothing, as if the reference had
 * left it out.  The header's sorting network orders every lane's keys at
 * once, without branches; the walk then takes,
 * in each lane, the first key at which the running weight reaches half of
 * the total.  The samples are read from padded copies of a segment of their
 * rows, holes (invalid) outside the image: the reference leaves those
 * samples out as it does holes, so the border needs no way of its own. */
#include "sd-fast.h"

#include "../sd-guided-median.h"
#include "fast-vector.h"

#define KEYS SD_GUIDED_MEDIAN_SAMPLES
#define KEY_LANES (LANES / 2)
#define WEIGHT_MASK ((1 << SD_GUIDED_MEDIAN_WEIGHT_BITS) - 1)

typedef int16_t vh __attribute__((vector_size (KEY_LANES * 2)));
typedef uint16_t vhu __attribute__((vector_size (KEY_LANES * 2)));
typedef uint8_t vg __attribute__((vector_size (KEY_LANES)));

static inline vi
load_disp (const int16_t * p)
{
  vh v;
  memcpy (&v, p, sizeof (v));
  return __builtin_convertvector (v, vi);
}

static inline vi
load_guide (const uint8_t * p)
{
  vg v;
  memcpy (&v, p, sizeof (v));
  /* by 16 bits: GCC makes bytes straight to 32 bits one lane at a time */
  return __builtin_convertvector (__builtin_convertvector (v, vhu), vi);
}

static inline vi
splat32 (int v)
{
  return (vi) { } + v;
}

/* a, b = the smaller, the larger */
static inline void
order_keys (vi * a, vi * b)
{
  const vi lo = vmin32 (*a, *b);
  *b = vmax32 (*a, *b);
  *a = lo;
}

/* output pixels of a window copy, and its rows' length: the grid's reach
 * either side, and the last vector's reach past the segment */
#define GUIDED_SEGMENT 1024
#define GUIDED_STRIDE (GUIDED_SEGMENT + 2 * SD_GUIDED_MEDIAN_REACH + KEY_LANES)
/* the rows outside the image are bytes of 0xff */
_Static_assert (SD_DISP_INVALID == -1, "invalid is not all ones");

/* The grid's rows of disparities and luma around one output row, column
 * SD_GUIDED_MEDIAN_REACH the segment's first pixel. */
typedef struct
{
  int16_t disp[SD_GUIDED_MEDIAN_SIDE][GUIDED_STRIDE];
  uint8_t guide[SD_GUIDED_MEDIAN_SIDE][GUIDED_STRIDE];
} Grid;

static void
fill_grid (Grid * g, const int16_t * src, const uint8_t * guide, int width,
    int height, int x0, int y)
{
  const int first = x0 - SD_GUIDED_MEDIAN_REACH;
  for (int j = 0; j < SD_GUIDED_MEDIAN_SIDE; j++) {
    const int yy = y + (j - SD_GUIDED_MEDIAN_SIDE / 2) * SD_GUIDED_MEDIAN_STEP;
    if (yy < 0 || yy >= height) {
      memset (g->disp[j], 0xff, sizeof (g->disp[j]));
      memset (g->guide[j], 0, sizeof (g->guide[j]));
      continue;
    }
    const size_t row = (size_t) yy * width;
    sd_fast_copy_segment (g->disp[j], src + row, width, first, GUIDED_STRIDE,
        sizeof (int16_t), 0xff, 0xff);
    sd_fast_copy_segment (g->guide[j], guide + row, width, first,
        GUIDED_STRIDE, 1, 0, 0);
  }
}

/* The guided medians of KEY_LANES pixels from column x of the grid; holes
 * stay as they are. */
static inline vi
median_of_grid (const Grid * g, int x)
{
  const int half = SD_GUIDED_MEDIAN_SIDE / 2;
  const int at = SD_GUIDED_MEDIAN_REACH + x;
  const vi centre = load_disp (&g->disp[half][at]);
  const vi centre_luma = load_guide (&g->guide[half][at]), zero = { };
  vi key[KEYS], total = { };
  for (int j = 0; j < SD_GUIDED_MEDIAN_SIDE; j++) {
    for (int i = -half; i <= half; i++) {
      const int column = at + i * SD_GUIDED_MEDIAN_STEP;
      const vi v = load_disp (&g->disp[j][column]);
      const vi step = load_guide (&g->guide[j][column]) - centre_luma;
      const vi t = vmax32 (splat32 (SD_GUIDED_MEDIAN_FALLOFF) -
          vmax32 (step, -step), zero);
      const vi valid = (vi) (v > zero);
      const vi w = t * t & valid;
      key[j * SD_GUIDED_MEDIAN_SIDE + i + half] =
          ((v << SD_GUIDED_MEDIAN_WEIGHT_BITS) & valid) | w;
      total += w;
    }
  }
  SD_GUIDED_MEDIAN_SORT (key, order_keys);
  vi below = { }, result = { }, done = { };
  for (int k = 0; k < KEYS; k++) {
    below += key[k] & WEIGHT_MASK;
    const vi hit = (vi) (below + below >= total) & ~done;
    result |= (key[k] >> SD_GUIDED_MEDIAN_WEIGHT_BITS) & hit;
    done |= hit;
  }
  const vi hole = (vi) (centre <= zero);
  return (centre & hole) | (result & ~hole);
}

void
SD_FAST (sd_fast_guided_median) (const SdParams * p, const int16_t * src,
    const uint8_t * guide, int16_t * dst, int width, int height)
{
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++) {
    Grid g;
    int16_t *out = dst + (size_t) y * width;
    for (int x0 = 0; x0 < width; x0 += GUIDED_SEGMENT) {
      fill_grid (&g, src, guide, width, height, x0, y);
      const int n = width - x0 < GUIDED_SEGMENT ? width - x0 : GUIDED_SEGMENT;
      for (int x = 0; x < n; x += KEY_LANES) {
        const vh m = __builtin_convertvector (median_of_grid (&g, x), vh);
        /* the last vector may reach past the row */
        memcpy (out + x0 + x, &m, (size_t) (n - x < KEY_LANES ? n - x :
                KEY_LANES) * sizeof (int16_t));
      }
    }
  }
}
