/* Fast census and cost volume: what common/cpu/cost.c computes, rows spread
 * over threads, and the census of a pixel whose window lies inside the
 * image read without clamping. */
#include "sd-fast.h"
#include "../sd-cost.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The census signature of (x, y), bits in the reference's order; clamp is
 * false only where the whole window lies inside the image. */
static inline uint64_t
census_at (const uint8_t * img, int width, int height, int x, int y,
    int rx, int ry, bool symmetric, bool clamp)
{
  const uint8_t centre = img[(size_t) y * width + x];
  uint64_t bits = 0;
  for (int dy = -ry; dy <= ry; dy++) {
    for (int dx = -rx; dx <= rx; dx++) {
      if (symmetric ? (dy > 0 || (dy == 0 && dx >= 0)) : (dx == 0 && dy == 0))
        continue;
      int ax = x + dx, ay = y + dy;
      if (clamp) {
        ax = sd_clamp_int (ax, 0, width - 1);
        ay = sd_clamp_int (ay, 0, height - 1);
      }
      const uint8_t a = img[(size_t) ay * width + ax];
      if (symmetric) {
        int bx = x - dx, by = y - dy;
        if (clamp) {
          bx = sd_clamp_int (bx, 0, width - 1);
          by = sd_clamp_int (by, 0, height - 1);
        }
        bits = bits << 1 | (a < img[(size_t) by * width + bx]);
      } else {
        bits = bits << 1 | (a < centre);
      }
    }
  }
  return bits;
}

/* Eight pixels' signatures at once, bits in census_at's order: a window
 * position's comparison for the eight is one byte compare, sign-extended to
 * 0 or -1 in each 64-bit lane and shifted in by bits * 2 - mask.  Only for
 * pixels whose window lies inside the image. */
typedef uint8_t v8b __attribute__((vector_size (8)));
typedef int8_t v8sb __attribute__((vector_size (8)));
typedef uint64_t v8q __attribute__((vector_size (64)));
typedef int64_t v8sq __attribute__((vector_size (64)));

static inline v8b
load8 (const uint8_t * p)
{
  v8b v;
  memcpy (&v, p, sizeof (v));
  return v;
}

static inline void
census8 (int width, const uint8_t * at, int rx, int ry,
    bool symmetric, uint64_t * out)
{
  const v8b centre = load8 (at);
  v8q bits = { };
  for (int dy = -ry; dy <= ry; dy++) {
    for (int dx = -rx; dx <= rx; dx++) {
      if (symmetric ? (dy > 0 || (dy == 0 && dx >= 0)) : (dx == 0 && dy == 0))
        continue;
      const v8b a = load8 (at + (ptrdiff_t) dy * width + dx);
      const v8b b = symmetric ? load8 (at - (ptrdiff_t) dy * width - dx) :
          centre;
      const v8sb less = (v8sb) (a < b);
      bits = (bits << 1) - (v8q) __builtin_convertvector (less, v8sq);
    }
  }
  memcpy (out, &bits, sizeof (bits));
}

void
SD_FAST (sd_fast_census) (const SdParams * p, const uint8_t * img,
    uint64_t * signature, int width, int height)
{
  const SdCensusWindow window = p->census_window;
  const int rx = window == SD_CENSUS_5X5 ? 2 : 4;
  const int ry = window == SD_CENSUS_5X5 ? 2 : 3;
  const bool symmetric = window == SD_CENSUS_CS9X7;
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++) {
    const bool inner_row = y >= ry && y < height - ry;
    uint64_t *out = signature + (size_t) y * width;
    const uint8_t *row = img + (size_t) y * width;
    for (int x = 0; x < width;) {
      if (inner_row && x >= rx && x + 8 <= width - rx) {
        if (symmetric)
          census8 (width, row + x, rx, ry, true, out + x);
        else
          census8 (width, row + x, rx, ry, false, out + x);
        x += 8;
      } else if (inner_row && x >= rx && x < width - rx) {
        out[x] = census_at (img, width, height, x, y, rx, ry, symmetric,
            false);
        x++;
      } else {
        out[x] = census_at (img, width, height, x, y, rx, ry, symmetric,
            true);
        x++;
      }
    }
  }
}

void
SD_FAST (sd_fast_cost_volume) (const SdParams * p, const uint8_t * left,
    const uint8_t * right, const uint64_t * census_left,
    const uint64_t * census_right, uint8_t * cost, int width, int height)
{
  const int D = p->num_disparities, dmin = p->min_disparity;
  const bool is_census = sd_params_uses_census (p);
  const bool blend = p->cost == SD_COST_CENSUS_AD;
  const int census_max = sd_cost_max (p);
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++) {
    const size_t row = (size_t) y * width;
    for (int x = 0; x < width; x++) {
      uint8_t *c = cost + (row + x) * D;
      /* disparities up to `direct` match inside the right image */
      const int direct = sd_clamp_int (x - dmin + 1, 0, D);
      if (is_census) {
        const uint64_t l = census_left[row + x];
        for (int k = 0; k < direct; k++)
          c[k] = (uint8_t) __builtin_popcountll (l ^
              census_right[row + x - dmin - k]);
        for (int k = direct; k < D; k++)
          c[k] = (uint8_t) __builtin_popcountll (l ^ census_right[row]);
      }
      if (blend) {
        /* a pass of its own over the Hamming distances: no popcount in
         * it, so it runs in vectors */
        const unsigned li = left[row + x];
        const uint8_t *r = right + row + x - dmin;
        for (int k = 0; k < direct; k++)
          c[k] = (uint8_t) sd_cost_census_ad (c[k], li > r[-k] ?
              li - r[-k] : r[-k] - li, census_max);
        const unsigned edge = right[row];
        const unsigned ad = li > edge ? li - edge : edge - li;
        for (int k = direct; k < D; k++)
          c[k] = (uint8_t) sd_cost_census_ad (c[k], ad, census_max);
      } else if (!is_census) {
        const int l = left[row + x];
        for (int k = 0; k < direct; k++)
          c[k] = (uint8_t) abs (l - (int) right[row + x - dmin - k]);
        for (int k = direct; k < D; k++)
          c[k] = (uint8_t) abs (l - (int) right[row]);
      }
    }
  }
}
