/* sd_rectify_component_rows in vectors: the bilinear sample of
 * common/sd-rectify.h (its taps and its rounding) for NI pixels at once,
 * the same bits.
 *
 * A run of NI pixels goes through the vectors when all its taps lie inside
 * the image with room to spare (x0 <= width - 4, y0 <= height - 2), so that
 * the right and lower taps are x0 + 1 and y0 + 1 and a 4-byte read at a
 * tap stays inside its row; the others (the image's last columns and row,
 * where the map clamps) take the scalar sample.
 *
 * What bounds it is fetching the taps: gathered (AVX2, AVX-512) or
 * inserted a lane at a time.  Without SSE4.1's inserts (the portable
 * builds) the vectors lost to the scalar sample, so those run the
 * reference (docs/performance.md, "stereorectify"). */
#include "sd-fast.h"
#include "fast-vector.h"
#include "../sd-rectify.h"

#if defined(__SSE4_1__)

/* int32 lanes in a register, and the map's x and y among 2 NI entries */
#define NI (LANES / 2)
#if NI == 4
#define EVENS 0, 2, 4, 6
#define ODDS 1, 3, 5, 7
#elif NI == 8
#define EVENS 0, 2, 4, 6, 8, 10, 12, 14
#define ODDS 1, 3, 5, 7, 9, 11, 13, 15
#else
#define EVENS 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define ODDS 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#endif

/* NI uint8 lanes: a run's samples */
typedef uint8_t vn __attribute__((vector_size (NI)));

/* Whether any lane of v is not 0. */
static inline bool
any (vi v)
{
#if defined(__AVX512BW__)
  return _mm512_test_epi32_mask ((__m512i) v, (__m512i) v) != 0;
#elif defined(__AVX2__)
  return !_mm256_testz_si256 ((__m256i) v, (__m256i) v);
#else
  return !_mm_testz_si128 ((__m128i) v, (__m128i) v);
#endif
}

/* The bytes at src + o and src + o + step of every lane.  Where one
 * gathered 4-byte word holds both (step < 4), AVX2 and AVX-512 gather it;
 * else the lanes are loaded one by one, which beat two gathers on an AMD
 * EPYC (docs/performance.md). */
static inline void
load_taps (const uint8_t * src, vi o, int step, vi * a, vi * b)
{
#if defined(__AVX512BW__) || defined(__AVX2__)
  if (step < 4) {
#if defined(__AVX512BW__)
    const vi w = (vi) _mm512_i32gather_epi32 ((__m512i) o, src, 1);
#else
    const vi w = (vi) _mm256_i32gather_epi32 ((const int *) src,
        (__m256i) o, 1);
#endif
    *a = w & 0xff;
    *b = (w >> (8 * step)) & 0xff;
    return;
  }
#endif
  for (int i = 0; i < NI; i++) {
    (*a)[i] = src[o[i]];
    (*b)[i] = src[o[i] + step];
  }
}

void SD_FAST (sd_fast_rectify_rows) (const int32_t * map,
    const uint8_t * src, int src_stride, uint8_t * dst, int dst_stride,
    int pixel_stride, int width, int height, int y0, int y1)
{
  const int32_t one = SD_RECTIFY_ONE, frac = SD_RECTIFY_ONE - 1;
  /* the taps' offsets are int32 lanes */
  const bool small = (int64_t) src_stride * height < INT32_MAX;
  for (int y = y0; y < y1; y++) {
    const int32_t *m = map + 2 * (size_t) y * width;
    uint8_t *d = dst + (size_t) y * dst_stride;
    int x = 0;
    for (; small && x + NI <= width; x += NI) {
      vi first, second;
      memcpy (&first, m + 2 * x, sizeof (first));
      memcpy (&second, m + 2 * x + NI, sizeof (second));
      const vi mx = __builtin_shufflevector (first, second, EVENS);
      const vi my = __builtin_shufflevector (first, second, ODDS);
      const vi tx = mx >> SD_RECTIFY_FRAC_BITS;
      const vi ty = my >> SD_RECTIFY_FRAC_BITS;
      if (any ((tx > width - 4) | (ty > height - 2))) {
        for (int i = 0; i < NI; i++)
          d[(size_t) (x + i) * pixel_stride] =
              sd_rectify_sample_strided (src, (size_t) src_stride,
              pixel_stride, width, height, mx[i], my[i]);
        continue;
      }
      const vi fx = mx & frac, fy = my & frac;
      const vi o = ty * src_stride + tx * pixel_stride;
      vi v00, v01, v10, v11;
      load_taps (src, o, pixel_stride, &v00, &v01);
      load_taps (src, o + src_stride, pixel_stride, &v10, &v11);
      /* sd_rectify_blend's arithmetic: at most 255 * 256 * 256 + 32768 */
      const vi top = v00 * (one - fx) + v01 * fx;
      const vi bottom = v10 * (one - fx) + v11 * fx;
      const vi r = (top * (one - fy) + bottom * fy +
          (1 << (2 * SD_RECTIFY_FRAC_BITS - 1))) >> (2 * SD_RECTIFY_FRAC_BITS);
      const vn bytes = __builtin_convertvector (r, vn);
      if (pixel_stride == 1)
        memcpy (d + x, &bytes, sizeof (bytes));
      else
        for (int i = 0; i < NI; i++)
          d[(size_t) (x + i) * pixel_stride] = bytes[i];
    }
    for (; x < width; x++)
      d[(size_t) x * pixel_stride] = sd_rectify_sample_strided (src,
          (size_t) src_stride, pixel_stride, width, height, m[2 * x],
          m[2 * x + 1]);
  }
}

#else

void SD_FAST (sd_fast_rectify_rows) (const int32_t * map,
    const uint8_t * src, int src_stride, uint8_t * dst, int dst_stride,
    int pixel_stride, int width, int height, int y0, int y1)
{
  sd_rectify_component_rows (map, src, src_stride, dst, dst_stride,
      pixel_stride, width, height, y0, y1);
}

#endif
