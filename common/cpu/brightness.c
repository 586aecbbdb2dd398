/* Brightness matching (sd-brightness.h): the map from the whole frame's
 * histograms, and a view through it. */
#include "sd-cpu.h"

static void
cumulative_histogram (const uint8_t * img, size_t n, uint32_t * cum)
{
  for (int l = 0; l < SD_BRIGHTNESS_LEVELS; l++)
    cum[l] = 0;
  for (size_t i = 0; i < n; i++)
    cum[img[i]]++;
  for (int l = 1; l < SD_BRIGHTNESS_LEVELS; l++)
    cum[l] += cum[l - 1];
}

void
sd_cpu_brightness_map (const uint8_t * left, const uint8_t * right,
    int width, int height, uint8_t map[SD_BRIGHTNESS_LEVELS])
{
  const size_t n = (size_t) width * height;
  uint32_t cum_left[SD_BRIGHTNESS_LEVELS], cum_right[SD_BRIGHTNESS_LEVELS];
  cumulative_histogram (left, n, cum_left);
  cumulative_histogram (right, n, cum_right);
  for (int r = 0; r < SD_BRIGHTNESS_LEVELS; r++)
    map[r] = sd_brightness_level (cum_left, cum_right, r);
}

void
sd_cpu_apply_brightness_map (const uint8_t map[SD_BRIGHTNESS_LEVELS],
    uint8_t * img, size_t n)
{
  for (size_t i = 0; i < n; i++)
    img[i] = map[img[i]];
}
