/* The guided median (sd_cpu_guided_median), the same values with vectors:
 * LANES / 2 pixels of a row at once, one 32-bit key per sample and pixel,
 * rows over threads.
 *
 * A sample's key is value << SD_GUIDED_MEDIAN_WEIGHT_BITS | weight, and 0
 * for a hole: it sorts first and weighs nothing, as if the reference had
 * left it out.  The header's sorting network orders every lane's keys at
 * once, without branches; the walk then takes,
 * in each lane, the first key at which the running weight reaches half of
 * the total.  Pixels whose grid reaches outside the image take the
 * reference's way. */
#include "sd-fast.h"

#include "../sd-guided-median.h"
#include "fast-vector.h"

#define KEYS SD_GUIDED_MEDIAN_SAMPLES
#define KEY_LANES (LANES / 2)
#define WEIGHT_MASK ((1 << SD_GUIDED_MEDIAN_WEIGHT_BITS) - 1)

typedef int16_t vh __attribute__((vector_size (KEY_LANES * 2)));
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
  return __builtin_convertvector (v, vi);
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

/* The guided medians of KEY_LANES pixels from the centre at src and guide
 * (the first pixel's addresses), whose grids lie inside the image. */
static inline vi
median_of_grid (const int16_t * src, const uint8_t * guide, int width)
{
  const int half = SD_GUIDED_MEDIAN_SIDE / 2;
  const vi centre_luma = load_guide (guide), zero = { };
  vi key[KEYS], total = { };
  for (int j = -half; j <= half; j++) {
    for (int i = -half; i <= half; i++) {
      const ptrdiff_t off = (ptrdiff_t) j * SD_GUIDED_MEDIAN_STEP * width +
          i * SD_GUIDED_MEDIAN_STEP;
      const vi v = load_disp (src + off);
      const vi step = load_guide (guide + off) - centre_luma;
      const vi t = vmax32 (splat32 (SD_GUIDED_MEDIAN_FALLOFF) -
          vmax32 (step, -step), zero);
      const vi valid = (vi) (v > zero);
      const vi w = t * t & valid;
      key[(j + half) * SD_GUIDED_MEDIAN_SIDE + i + half] =
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
  return result;
}

void
SD_FAST (sd_fast_guided_median) (const SdParams * p, const int16_t * src,
    const uint8_t * guide, int16_t * dst, int width, int height)
{
  const int reach = SD_GUIDED_MEDIAN_REACH;
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++) {
    const size_t row = (size_t) y * width;
    const bool inner_row = y >= reach && y + reach < height;
    for (int x = 0; x < width;) {
      if (inner_row && x >= reach && x + KEY_LANES + reach <= width) {
        const vi centre = load_disp (src + row + x);
        const vi hole = (vi) (centre <= (vi) { });
        const vi m = median_of_grid (src + row + x, guide + row + x, width);
        const vh out = __builtin_convertvector ((centre & hole) | (m & ~hole),
            vh);
        memcpy (dst + row + x, &out, sizeof (out));
        x += KEY_LANES;
      } else {
        dst[row + x] = sd_cpu_guided_median_at (src, guide, width, height, x,
            y);
        x++;
      }
    }
  }
}
