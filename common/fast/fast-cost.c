/* Fast census and cost volume: what common/cpu/cost.c computes, rows spread
 * over threads, and the census of a pixel whose window lies inside the
 * image read without clamping. */
#include "sd-fast.h"
#include "../sd-cost.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#if defined(__AVX512BW__)
#include <immintrin.h>
#endif

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

/* The left pixels whose right census words are gathered at once. */
#define CENSUS_CHUNK 128

/* out[k] = the bits set in l ^ words[k], k < n.  With AVX-512BW eight
 * words at a time: the bits counted four at a time by a table lookup
 * (vpshufb), a word's eight byte counts added by vpsadbw (x86 has no vector
 * popcount short of AVX-512's VPOPCNTDQ, which not every AVX-512 processor
 * has).  The popcnt loop was half of the cost volume's time there; with
 * AVX2's four words a vector the same was no faster than popcnt
 * (docs/performance.md). */
static inline void
hamming_row (uint8_t * out, const uint64_t * words, uint64_t l, int n)
{
  int k = 0;
#if defined(__AVX512BW__)
  const __m512i nibble_bits = _mm512_broadcast_i32x4 (_mm_setr_epi8 (0, 1,
          1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4));
  const __m512i low = _mm512_set1_epi8 (0x0f), lw = _mm512_set1_epi64 (l);
  for (; k + 8 <= n; k += 8) {
    const __m512i v = _mm512_xor_si512 (_mm512_loadu_si512 (words + k), lw);
    const __m512i bytes = _mm512_add_epi8 (_mm512_shuffle_epi8 (nibble_bits,
            _mm512_and_si512 (v, low)), _mm512_shuffle_epi8 (nibble_bits,
            _mm512_and_si512 (_mm512_srli_epi16 (v, 4), low)));
    const __m512i counts = _mm512_sad_epu8 (bytes, _mm512_setzero_si512 ());
    _mm_storel_epi64 ((__m128i *) (out + k), _mm512_cvtepi64_epi8 (counts));
  }
#endif
  for (; k < n; k++)
    out[k] = (uint8_t) __builtin_popcountll (l ^ words[k]);
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
    /* the right census words a chunk of left pixels compares with,
     * backwards: disparity k of left pixel x is right pixel x - dmin - k,
     * or the first pixel where that lies left of the image, so each left
     * pixel finds its D words one after the other */
    uint64_t reversed[CENSUS_CHUNK + SD_MAX_DISPARITIES];
    for (int x0 = 0; x0 < width; x0 += CENSUS_CHUNK) {
      const int x1 = x0 + CENSUS_CHUNK < width ? x0 + CENSUS_CHUNK : width;
      if (is_census)
        for (int i = 0; i < x1 - x0 + D - 1; i++)
          reversed[i] = census_right[row + sd_clamp_int (x1 - 1 - dmin - i, 0,
                  width - 1)];
      for (int x = x0; x < x1; x++) {
        uint8_t *c = cost + (row + x) * D;
        /* disparities up to `direct` match inside the right image */
        const int direct = sd_clamp_int (x - dmin + 1, 0, D);
        if (is_census)
          hamming_row (c, reversed + (x1 - 1 - x), census_left[row + x], D);
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
}
