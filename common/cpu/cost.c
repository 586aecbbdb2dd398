/* Matching costs: census signatures and their Hamming distance, the
 * absolute difference of the prefiltered images, or the two blended
 * (census-ad, sd-cost.h). */
#include "sd-cpu.h"
#include "../sd-cost.h"

#include <stdlib.h>

int
sd_cost_max (const SdParams * p)
{
  if (p->cost == SD_COST_AD)
    return 255;
  switch (p->census_window) {
    case SD_CENSUS_5X5:
      return 5 * 5 - 1;
    case SD_CENSUS_CS9X7:
      return (9 * 7 - 1) / 2;
    case SD_CENSUS_9X7:
    default:
      return 9 * 7 - 1;
  }
}

static uint8_t
pixel (const uint8_t * img, int width, int height, int x, int y)
{
  return img[(size_t) sd_clamp_int (y, 0, height - 1) * width +
      sd_clamp_int (x, 0, width - 1)];
}

/* Bits are appended in raster order of the window (dy, then dx), skipping
 * the centre; a bit is 1 when the neighbour is darker than the centre.  The
 * centre-symmetric window compares each pixel of the first half of the
 * window with its mirror image through the centre instead. */
void
sd_cpu_census (const uint8_t * img, uint64_t * signature, int width,
    int height, SdCensusWindow window)
{
  const int rx = window == SD_CENSUS_5X5 ? 2 : 4;
  const int ry = window == SD_CENSUS_5X5 ? 2 : 3;
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      const uint8_t centre = img[(size_t) y * width + x];
      uint64_t bits = 0;
      for (int dy = -ry; dy <= ry; dy++) {
        for (int dx = -rx; dx <= rx; dx++) {
          if (window == SD_CENSUS_CS9X7) {
            /* first half in raster order: stop at the centre */
            if (dy > 0 || (dy == 0 && dx >= 0))
              continue;
            uint8_t a = pixel (img, width, height, x + dx, y + dy);
            uint8_t b = pixel (img, width, height, x - dx, y - dy);
            bits = bits << 1 | (a < b);
          } else {
            if (dx == 0 && dy == 0)
              continue;
            bits = bits << 1 | (pixel (img, width, height, x + dx,
                    y + dy) < centre);
          }
        }
      }
      signature[(size_t) y * width + x] = bits;
    }
  }
}

void
sd_cpu_cost_volume (const SdParams * p, const uint8_t * left,
    const uint8_t * right, const uint64_t * census_left,
    const uint64_t * census_right, uint8_t * cost, int width, int height)
{
  const int D = p->num_disparities;
  const int census_max = sd_cost_max (p);
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      const size_t i = (size_t) y * width + x;
      uint8_t *c = cost + i * D;
      for (int k = 0; k < D; k++) {
        /* a match left of the right image reads its edge pixel, as every
         * window reaching outside the image does */
        const size_t r = (size_t) y * width + sd_clamp_int (x -
            p->min_disparity - k, 0, width - 1);
        const int h = sd_params_uses_census (p) ?
            __builtin_popcountll (census_left[i] ^ census_right[r]) : 0;
        const int ad = abs ((int) left[i] - (int) right[r]);
        c[k] = (uint8_t) (p->cost == SD_COST_CENSUS ? h :
            p->cost == SD_COST_AD ? ad :
            sd_cost_census_ad (h, ad, census_max));
      }
    }
  }
}
