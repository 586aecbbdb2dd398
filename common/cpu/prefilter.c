/* Median and rank prefilters on 8-bit luma. */
#include "sd-cpu.h"

#include <stdlib.h>
#include <string.h>

static int
compare_u8 (const void *a, const void *b)
{
  return (int) *(const uint8_t *) a - (int) *(const uint8_t *) b;
}

void
sd_cpu_median_filter (const uint8_t * src, uint8_t * dst, int width,
    int height, int window)
{
  const int r = window / 2;
  uint8_t values[25];
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      int n = 0;
      for (int dy = -r; dy <= r; dy++) {
        const uint8_t *row = src + (size_t) sd_clamp_int (y + dy, 0,
            height - 1) * width;
        for (int dx = -r; dx <= r; dx++)
          values[n++] = row[sd_clamp_int (x + dx, 0, width - 1)];
      }
      qsort (values, (size_t) n, 1, compare_u8);
      dst[(size_t) y * width + x] = values[n / 2];
    }
  }
}

void
sd_cpu_rank_filter (const uint8_t * src, uint8_t * dst, int width,
    int height, int window)
{
  const int r = window / 2;
  for (int y = 0; y < height; y++) {
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
}

void
sd_cpu_prefilter (const SdParams * p, const uint8_t * src, uint8_t * dst,
    uint8_t * tmp, int width, int height)
{
  switch (p->prefilter) {
    case SD_PREFILTER_NONE:
      memcpy (dst, src, (size_t) width * height);
      break;
    case SD_PREFILTER_MEDIAN3:
      sd_cpu_median_filter (src, dst, width, height, 3);
      break;
    case SD_PREFILTER_MEDIAN5:
      sd_cpu_median_filter (src, dst, width, height, 5);
      break;
    case SD_PREFILTER_RANK:
      sd_cpu_rank_filter (src, dst, width, height, p->rank_window);
      break;
    case SD_PREFILTER_MEDIAN_RANK:
      sd_cpu_median_filter (src, tmp, width, height, 3);
      sd_cpu_rank_filter (tmp, dst, width, height, p->rank_window);
      break;
  }
}
