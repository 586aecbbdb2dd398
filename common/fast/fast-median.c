/* The 3x3 median of the disparities (sd_cpu_median_disparity), the same
 * values with vectors: LANES pixels of a row at once, rows over threads.
 *
 * The network and why the invalid values go low and high:
 * sd-median9.h.  Pixels on the image's border, whose window is cut, and
 * an invalid centre take the reference's way. */
#include "sd-fast.h"

#include "fast-vector.h"

#define SD_MEDIAN9_T vs
#define SD_MEDIAN9_MIN vmin
#define SD_MEDIAN9_MAX vmax
#include "../sd-median9.h"

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
  return sd_median9 (v);
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
