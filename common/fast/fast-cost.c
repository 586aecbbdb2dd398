/* Fast census and cost volume: what common/cpu/cost.c computes, rows spread
 * over threads, the census of many pixels at once. */
#include "sd-fast.h"
#include "../sd-cost.h"
#include "fast-vector.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <immintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#endif

/* The census, a register's width of pixels at a time (`Row`: one byte
 * each).  A window position's comparison for all of them is one byte
 * compare; eight positions are shifted into one byte a pixel (a plane), and
 * the eight planes interleaved give each pixel its word.
 *
 * It reads its window rows from a padded copy of a segment of them: the
 * image's edge pixels repeated past its sides, the rows above the first and
 * below the last the edge rows again.  That is what the reference's
 * clamping reads, so every pixel takes the vector path. */

#if defined(__AVX512BW__)
#define CENSUS_PIXELS 64
#elif defined(__AVX2__)
#define CENSUS_PIXELS 32
#else
#define CENSUS_PIXELS 16
#endif
typedef uint8_t Row __attribute__((vector_size (CENSUS_PIXELS)));
typedef int8_t SignedRow __attribute__((vector_size (CENSUS_PIXELS)));

/* output pixels of a window copy; its rows reach CENSUS_RX past them on
 * the left and CENSUS_RX + CENSUS_PIXELS on the right, so that the last
 * vector's window stays inside */
#define CENSUS_SEGMENT 1024
#define CENSUS_RX 4
#define CENSUS_RY 3
#define CENSUS_STRIDE (CENSUS_SEGMENT + 2 * CENSUS_RX + CENSUS_PIXELS)

/* 2 CENSUS_RY + 1 rows, the output row's in the middle; column CENSUS_RX
 * is the segment's first pixel */
typedef uint8_t Window[2 * CENSUS_RY + 1][CENSUS_STRIDE];

/* The window rows (the middle one and ry either side) around row y, for
 * the segment from column x0. */
static void
fill_window (Window w, int ry, const uint8_t * img, int width, int height,
    int x0, int y)
{
  for (int dy = -ry; dy <= ry; dy++) {
    const uint8_t *row = img + (size_t) sd_clamp_int (y + dy, 0,
        height - 1) * width;
    sd_fast_copy_segment (w[CENSUS_RY + dy], row, width, x0 - CENSUS_RX,
        CENSUS_STRIDE, 1, row[0], row[width - 1]);
  }
}

static inline Row
load_row (const uint8_t * p)
{
  Row v;
  memcpy (&v, p, sizeof (v));
  return v;
}

/* out[p] = byte p of each plane, plane 0 in the lowest byte: three rounds
 * of unpacking, 16 pixels at a time. */
static inline void
interleave_planes (const Row plane[8], uint64_t * out)
{
  for (int c = 0; c < CENSUS_PIXELS; c += 16) {
#if defined(__SSE2__)
    __m128i b[8], h[8], d[8];
    for (int j = 0; j < 8; j++)
      memcpy (&b[j], (const uint8_t *) &plane[j] + c, 16);
    /* planes 2 i and 2 i + 1 as 16-bit units: pixels 0-7, then 8-15 */
    for (int i = 0; i < 4; i++) {
      h[2 * i] = _mm_unpacklo_epi8 (b[2 * i], b[2 * i + 1]);
      h[2 * i + 1] = _mm_unpackhi_epi8 (b[2 * i], b[2 * i + 1]);
    }
    /* planes 0-3 (d[0 .. 3]) and 4-7 (d[4 .. 7]) as 32-bit units, four
     * pixels each */
    for (int i = 0; i < 2; i++)
      for (int k = 0; k < 2; k++) {
        d[4 * i + 2 * k] = _mm_unpacklo_epi16 (h[4 * i + k], h[4 * i + k + 2]);
        d[4 * i + 2 * k + 1] = _mm_unpackhi_epi16 (h[4 * i + k],
            h[4 * i + k + 2]);
      }
    for (int i = 0; i < 4; i++) {
      const __m128i lo = _mm_unpacklo_epi32 (d[i], d[i + 4]);
      const __m128i hi = _mm_unpackhi_epi32 (d[i], d[i + 4]);
      memcpy (out + c + 4 * i, &lo, 16);
      memcpy (out + c + 4 * i + 2, &hi, 16);
    }
#elif defined(__ARM_NEON)
    uint8x16_t b[8];
    uint16x8_t h[8];
    uint32x4_t d[8];
    for (int j = 0; j < 8; j++)
      b[j] = vld1q_u8 ((const uint8_t *) &plane[j] + c);
    for (int i = 0; i < 4; i++) {
      h[2 * i] = vreinterpretq_u16_u8 (vzip1q_u8 (b[2 * i], b[2 * i + 1]));
      h[2 * i + 1] = vreinterpretq_u16_u8 (vzip2q_u8 (b[2 * i],
              b[2 * i + 1]));
    }
    for (int i = 0; i < 2; i++)
      for (int k = 0; k < 2; k++) {
        d[4 * i + 2 * k] = vreinterpretq_u32_u16 (vzip1q_u16 (h[4 * i + k],
                h[4 * i + k + 2]));
        d[4 * i + 2 * k + 1] = vreinterpretq_u32_u16 (vzip2q_u16 (h[4 * i +
                    k], h[4 * i + k + 2]));
      }
    for (int i = 0; i < 4; i++) {
      vst1q_u64 (out + c + 4 * i, vreinterpretq_u64_u32 (vzip1q_u32 (d[i],
                  d[i + 4])));
      vst1q_u64 (out + c + 4 * i + 2, vreinterpretq_u64_u32 (vzip2q_u32
              (d[i], d[i + 4])));
    }
#else
    for (int p = c; p < c + 16; p++) {
      uint64_t word = 0;
      for (int j = 7; j >= 0; j--)
        word = word << 8 | plane[j][p];
      out[p] = word;
    }
#endif
  }
}

/* The signatures of the CENSUS_PIXELS pixels from column x of the window,
 * in the reference's bit order: positions in raster order, the first in
 * the highest bit; the centre-symmetric window compares the positions
 * before the centre with their mirror images. */
static inline void
census_pixels (Window w, int x, int rx, int ry, bool symmetric,
    uint64_t * out)
{
  const uint8_t *at = &w[CENSUS_RY][CENSUS_RX + x];
  const int bits = symmetric ? ((2 * rx + 1) * (2 * ry + 1) - 1) / 2 :
      (2 * rx + 1) * (2 * ry + 1) - 1;
  const Row centre = load_row (at);
  Row plane[8] = { }, acc = { };
  int bit = bits - 1;           /* the position's bit in the word */
  for (int dy = -ry; dy <= ry; dy++)
    for (int dx = -rx; dx <= rx; dx++) {
      if (symmetric ? dy > 0 || (dy == 0 && dx >= 0) : dx == 0 && dy == 0)
        continue;
      const ptrdiff_t off = (ptrdiff_t) dy * CENSUS_STRIDE + dx;
      const Row a = load_row (at + off);
      const Row c = symmetric ? load_row (at - off) : centre;
      /* a < c is -1 where true: acc * 2 + 1 */
      acc = acc + acc - (Row) (SignedRow) (a < c);
      if (bit % 8 == 0) {
        plane[bit / 8] = acc;
        acc = (Row) { };
      }
      bit--;
    }
  interleave_planes (plane, out);
}

/* census_pixels with the window's sizes as constants, so that its loops
 * unroll */
static inline void
census_pixels_of (SdCensusWindow window, Window w, int x, uint64_t * out)
{
  switch (window) {
    case SD_CENSUS_5X5:
      census_pixels (w, x, 2, 2, false, out);
      break;
    case SD_CENSUS_CS9X7:
      census_pixels (w, x, 4, 3, true, out);
      break;
    case SD_CENSUS_9X7:
    default:
      census_pixels (w, x, 4, 3, false, out);
      break;
  }
}

void
SD_FAST (sd_fast_census) (const SdParams * p, const uint8_t * img,
    uint64_t * signature, int width, int height)
{
  const SdCensusWindow window = p->census_window;
  const int ry = window == SD_CENSUS_5X5 ? 2 : CENSUS_RY;
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++) {
    Window w;
    uint64_t *out = signature + (size_t) y * width;
    for (int x0 = 0; x0 < width; x0 += CENSUS_SEGMENT) {
      fill_window (w, ry, img, width, height, x0, y);
      const int n = width - x0 < CENSUS_SEGMENT ? width - x0 : CENSUS_SEGMENT;
      for (int x = 0; x < n; x += CENSUS_PIXELS) {
        if (x + CENSUS_PIXELS <= n) {
          census_pixels_of (window, w, x, out + x0 + x);
        } else {
          uint64_t last[CENSUS_PIXELS];
          census_pixels_of (window, w, x, last);
          memcpy (out + x0 + x, last, (size_t) (n - x) * sizeof (last[0]));
        }
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

/* Absolute differences of bytes, lane by lane. */
static inline vb
absdiff_lanes (vb a, vb b)
{
  const vb a_more = (vb) (a > b);
  return ((a - b) & a_more) | ((b - a) & ~a_more);
}

/* LANES costs of a left pixel of intensity li: sd_cost_census_ad of the
 * Hamming distances h and the differences from the right intensities r
 * (blend), or those differences alone. */
static inline vb
cost_lanes (vb h, vb r, vb li, bool blend, vu census_max)
{
  const vb ad = absdiff_lanes (li, r);
  if (!blend)
    return ad;
  const vu trunc = (vu) { } + (uint16_t) SD_CENSUS_AD_TRUNC;
  const vu adw = __builtin_convertvector (ad, vu);
  const vu below = (vu) (adw < trunc);
  const vu t = (adw & below) | (trunc & ~below);
  const vu hw = __builtin_convertvector (h, vu);
  /* unsigned, as in sd_cost_census_ad: the division by 16 is the shift */
  return __builtin_convertvector ((hw * 3 + ((t * census_max) >> 4) + 2) >>
      2, vb);
}

/* The D costs of one left pixel of intensity li into c, which holds their
 * Hamming distances where blend; r[k] is disparity k's right intensity.
 * Whole vectors only: the last one overlaps the one before where D is no
 * multiple of LANES, and is computed first, from the distances before any
 * is replaced. */
static inline void
pixel_costs (uint8_t * c, const uint8_t * r, unsigned li, int D, bool blend,
    unsigned census_max)
{
  if (D < LANES) {
    for (int k = 0; k < D; k++) {
      const unsigned ad = li > r[k] ? li - r[k] : r[k] - li;
      c[k] = (uint8_t) (blend ? sd_cost_census_ad (c[k], ad, census_max) :
          (int) ad);
    }
    return;
  }
  const vb l = (vb) { } + (uint8_t) li;
  const vu cm = (vu) { } + (uint16_t) census_max;
  const int last = D - LANES;
  const vb tail = cost_lanes (load_bytes (c + last), load_bytes (r + last), l,
      blend, cm);
  for (int k = 0; k < last; k += LANES) {
    const vb v = cost_lanes (load_bytes (c + k), load_bytes (r + k), l, blend,
        cm);
    memcpy (c + k, &v, sizeof (v));
  }
  memcpy (c + last, &tail, sizeof (tail));
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
  const bool intensities = blend || !is_census;
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++) {
    const size_t row = (size_t) y * width;
    /* the right census words and intensities a chunk of left pixels
     * compares with, backwards: disparity k of left pixel x is right pixel
     * x - dmin - k, or the first pixel where that lies left of the image,
     * so each left pixel finds its D values one after the other */
    uint64_t reversed[CENSUS_CHUNK + SD_MAX_DISPARITIES];
    uint8_t reversed_right[CENSUS_CHUNK + SD_MAX_DISPARITIES];
    for (int x0 = 0; x0 < width; x0 += CENSUS_CHUNK) {
      const int x1 = x0 + CENSUS_CHUNK < width ? x0 + CENSUS_CHUNK : width;
      for (int i = 0; i < x1 - x0 + D - 1; i++) {
        const size_t at = row + (size_t) sd_clamp_int (x1 - 1 - dmin - i, 0,
            width - 1);
        if (is_census)
          reversed[i] = census_right[at];
        if (intensities)
          reversed_right[i] = right[at];
      }
      for (int x = x0; x < x1; x++) {
        uint8_t *c = cost + (row + x) * D;
        if (is_census)
          hamming_row (c, reversed + (x1 - 1 - x), census_left[row + x], D);
        if (intensities)
          pixel_costs (c, reversed_right + (x1 - 1 - x), left[row + x], D,
              blend, (unsigned) census_max);
      }
    }
  }
}
