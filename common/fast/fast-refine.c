/* Fast versions of the reference's refinement stages (common/cpu/refine.c)
 * that SGM and BP share: the same values, rows over threads, and the
 * median's sort without qsort's indirect calls. */
#include "sd-fast.h"

void
sd_fast_lr_check (const SdParams * p, int16_t * disp,
    const int16_t * right_disp, int width, int height)
{
  /* a pixel is checked against its own row of the right view */
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++)
    sd_cpu_lr_check (p, disp + (size_t) y * width,
        right_disp + (size_t) y * width, width, 1);
}

void
sd_fast_median_disparity (const SdParams * p, const int16_t * src,
    int16_t * dst, int width, int height)
{
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      const size_t pix = (size_t) y * width + x;
      if (src[pix] == SD_DISP_INVALID) {
        dst[pix] = SD_DISP_INVALID;
        continue;
      }
      /* the valid neighbours, insertion-sorted as they come */
      int16_t values[9];
      int n = 0;
      for (int yy = y - 1; yy <= y + 1; yy++) {
        if (yy < 0 || yy >= height)
          continue;
        for (int xx = x - 1; xx <= x + 1; xx++) {
          if (xx < 0 || xx >= width)
            continue;
          const int16_t v = src[(size_t) yy * width + xx];
          if (v == SD_DISP_INVALID)
            continue;
          int i = n++;
          for (; i > 0 && values[i - 1] > v; i--)
            values[i] = values[i - 1];
          values[i] = v;
        }
      }
      dst[pix] = values[(n - 1) / 2];
    }
  }
}
