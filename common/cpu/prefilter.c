/* Median and rank prefilters on 8-bit luma. */
#include "sd-cpu.h"

#include <string.h>

void
sd_cpu_median_filter_row (const uint8_t * src, uint8_t * dst, int width,
    int height, int window, int y)
{
  const int r = window / 2;
  for (int x = 0; x < width; x++) {
    /* the window's values, insertion-sorted as they come */
    uint8_t values[25];
    int n = 0;
    for (int dy = -r; dy <= r; dy++) {
      const uint8_t *row = src + (size_t) sd_clamp_int (y + dy, 0,
          height - 1) * width;
      for (int dx = -r; dx <= r; dx++) {
        const uint8_t v = row[sd_clamp_int (x + dx, 0, width - 1)];
        int i = n++;
        for (; i > 0 && values[i - 1] > v; i--)
          values[i] = values[i - 1];
        values[i] = v;
      }
    }
    dst[(size_t) y * width + x] = values[n / 2];
  }
}

void
sd_cpu_rank_filter_row (const uint8_t * src, uint8_t * dst, int width,
    int height, int window, int y)
{
  const int r = window / 2;
  for (int x = 0; x < width; x++) {
    const uint8_t centre = src[(size_t) y * width + x];
    int rank = 0;
    for (int dy = -r; dy <= r; dy++) {
      const uint8_t *row = src + (size_t) sd_clamp_int (y + dy, 0,
          height - 1) * width;
      for (int dx = -r; dx <= r; dx++)
        rank += row[sd_clamp_int (x + dx, 0, width - 1)] < centre;
    }
    dst[(size_t) y * width + x] = (uint8_t) rank;
  }
}

/* The reference's runner: rows in order. */
static void
rows_in_order (const SdParams * p, SdRowFilter filter, const uint8_t * src,
    uint8_t * dst, int width, int height, int window)
{
  (void) p;
  for (int y = 0; y < height; y++)
    filter (src, dst, width, height, window, y);
}

void
sd_cpu_median_filter (const uint8_t * src, uint8_t * dst, int width,
    int height, int window)
{
  rows_in_order (NULL, sd_cpu_median_filter_row, src, dst, width, height,
      window);
}

void
sd_cpu_rank_filter (const uint8_t * src, uint8_t * dst, int width,
    int height, int window)
{
  rows_in_order (NULL, sd_cpu_rank_filter_row, src, dst, width, height,
      window);
}

void
sd_cpu_prefilter (const SdParams * p, SdRowRunner run, const uint8_t * src,
    uint8_t * dst, uint8_t * tmp, int width, int height)
{
  if (!run)
    run = rows_in_order;
  switch (p->prefilter) {
    case SD_PREFILTER_NONE:
      memcpy (dst, src, (size_t) width * height);
      break;
    case SD_PREFILTER_MEDIAN3:
      run (p, sd_cpu_median_filter_row, src, dst, width, height, 3);
      break;
    case SD_PREFILTER_MEDIAN5:
      run (p, sd_cpu_median_filter_row, src, dst, width, height, 5);
      break;
    case SD_PREFILTER_RANK:
      run (p, sd_cpu_rank_filter_row, src, dst, width, height,
          p->rank_window);
      break;
    case SD_PREFILTER_MEDIAN_RANK:
      run (p, sd_cpu_median_filter_row, src, tmp, width, height, 3);
      run (p, sd_cpu_rank_filter_row, tmp, dst, width, height,
          p->rank_window);
      break;
  }
}
