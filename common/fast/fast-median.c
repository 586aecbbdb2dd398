/* The 3x3 median of the disparities (sd_cpu_median_disparity), the same
 * values with vectors: LANES pixels of a row at once, rows over threads.
 *
 * The network and why the invalid values go low and high:
 * sd-median9.h.  The rows are read from a padded copy of a segment of
 * them, invalid outside the image: the reference leaves those neighbours
 * out as it does invalid ones, so the border needs no way of its own. */
#include "sd-fast.h"

#include "fast-vector.h"

#define SD_MEDIAN9_T vs
#define SD_MEDIAN9_MIN vmin
#define SD_MEDIAN9_MAX vmax
#include "../sd-median9.h"

/* output pixels of a window copy, and its rows' length: a column either
 * side, and the last vector's reach past the segment */
#define MEDIAN_SEGMENT 1024
#define MEDIAN_STRIDE (MEDIAN_SEGMENT + 2 + LANES)
/* the rows outside the image are bytes of 0xff */
_Static_assert (SD_DISP_INVALID == -1, "invalid is not all ones");

/* The medians of LANES pixels from the centre at src (the first one's
 * address) in rows `stride` apart; an invalid centre stays invalid. */
static inline vs
median9 (const int16_t * src, ptrdiff_t stride)
{
  const vs invalid = splat (SD_DISP_INVALID), low = splat (INT16_MIN),
      high = splat (INT16_MAX);
  const vs is_invalid = (vs) (load (src) == invalid);
  vs v[9], odd = { };
  for (int i = 0; i < 9; i++) {
    v[i] = load (src + (i / 3 - 1) * stride + i % 3 - 1);
    /* the 1st, 3rd, ... invalid value of a lane goes low, the others high */
    const vs missing = (vs) (v[i] == invalid);
    odd ^= missing;
    v[i] = (v[i] & ~missing) | (missing & ((low & odd) | (high & ~odd)));
  }
  return (sd_median9 (v) & ~is_invalid) | (invalid & is_invalid);
}

void
SD_FAST (sd_fast_median_disparity) (const SdParams * p, const int16_t * src,
    int16_t * dst, int width, int height)
{
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++) {
    /* rows y - 1, y and y + 1; column 1 is the segment's first pixel */
    int16_t window[3][MEDIAN_STRIDE];
    int16_t *out = dst + (size_t) y * width;
    for (int x0 = 0; x0 < width; x0 += MEDIAN_SEGMENT) {
      for (int r = 0; r < 3; r++) {
        const int yy = y + r - 1;
        if (yy < 0 || yy >= height)
          memset (window[r], 0xff, sizeof (window[r]));
        else
          sd_fast_copy_segment (window[r], src + (size_t) yy * width, width,
              x0 - 1, MEDIAN_STRIDE, sizeof (int16_t), 0xff, 0xff);
      }
      const int n = width - x0 < MEDIAN_SEGMENT ? width - x0 : MEDIAN_SEGMENT;
      for (int x = 0; x < n; x += LANES) {
        const vs m = median9 (&window[1][1 + x], MEDIAN_STRIDE);
        /* the last vector may reach past the row */
        memcpy (out + x0 + x, &m, (size_t) (n - x < LANES ? n - x : LANES) *
            sizeof (int16_t));
      }
    }
  }
}
