/* The 3x3 median of the disparities (sd_cpu_median_disparity), the same
 * values with vectors: LANES pixels of a row at once, rows over threads.
 *
 * The reference takes the lower median of the valid values among the nine.
 * With m of the nine invalid, replacing ceil(m / 2) of them by -infinity
 * and the other floor(m / 2) by +infinity puts that value in the middle of
 * all nine: which invalid ones get which does not matter, only the count.
 * The median of nine is then a fixed network of minimums and maximums: sort
 * each row's three, and take the middle of (the largest of the three
 * smallest, the middle of the three middles, the smallest of the three
 * largest).  Pixels on the image's border, whose window is cut, and an
 * invalid centre take the reference's way. */
#include "sd-fast.h"

#include "fast-vector.h"

/* a, b = the smaller, the larger */
static inline void
order (vs * a, vs * b)
{
  const vs lo = vmin (*a, *b);
  *b = vmax (*a, *b);
  *a = lo;
}

static inline void
sort3 (vs * a, vs * b, vs * c)
{
  order (a, b);
  order (b, c);
  order (a, b);
}

static inline vs
middle3 (vs a, vs b, vs c)
{
  return vmax (vmin (a, b), vmin (vmax (a, b), c));
}

/* The medians of LANES pixels from src (the first one's address); none on
 * the border. */
static inline vs
median9 (const int16_t * src, int width)
{
  const vs invalid = splat (SD_DISP_INVALID), low = splat (INT16_MIN),
      high = splat (INT16_MAX);
  vs v[9], odd = { };
  for (int i = 0; i < 9; i++) {
    v[i] = load (src + (ptrdiff_t) (i / 3 - 1) * width + i % 3 - 1);
    /* the 1st, 3rd, ... invalid value of a lane goes low, the others high */
    const vs missing = (vs) (v[i] == invalid);
    odd ^= missing;
    v[i] = (v[i] & ~missing) | (missing & ((low & odd) | (high & ~odd)));
  }
  for (int r = 0; r < 3; r++)
    sort3 (&v[3 * r], &v[3 * r + 1], &v[3 * r + 2]);
  return middle3 (vmax (vmax (v[0], v[3]), v[6]),
      middle3 (v[1], v[4], v[7]), vmin (vmin (v[2], v[5]), v[8]));
}

void
SD_FAST (sd_fast_median_disparity) (const SdParams * p, const int16_t * src,
    int16_t * dst, int width, int height)
{
  const vs invalid = splat (SD_DISP_INVALID);
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++) {
    const size_t row = (size_t) y * width;
    const bool inner_row = y > 0 && y < height - 1;
    for (int x = 0; x < width;) {
      if (inner_row && x > 0 && x + LANES < width) {
        const vs centre = load (src + row + x);
        const vs is_invalid = (vs) (centre == invalid);
        const vs m = median9 (src + row + x, width);
        store (dst + row + x, (m & ~is_invalid) | (invalid & is_invalid));
        x += LANES;
      } else {
        dst[row + x] = sd_cpu_median_at (src, width, height, x, y);
        x++;
      }
    }
  }
}
