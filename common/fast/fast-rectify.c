/* sd_rectify_component_rows and sd_rectify_component16_rows in vectors:
 * the bilinear sample of common/sd-rectify.h (its taps and its rounding)
 * for NI pixels at once, the same bits.
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

/* NI lanes of a run's samples: uint32 for the blend (16-bit values reach
 * 65535 * 256 * 256 + 32768, past int32), bytes and words to store */
typedef uint32_t vn32 __attribute__((vector_size (NI * 4)));
typedef uint8_t vn8 __attribute__((vector_size (NI)));
typedef uint16_t vn16 __attribute__((vector_size (NI * 2)));

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

/* The samples (size bytes, 1 or 2) at src + o and src + o + step of every
 * lane.  Where one gathered 4-byte word holds both (step + size <= 4),
 * AVX2 and AVX-512 gather it; else the lanes are loaded one by one, which
 * beat two gathers on an AMD EPYC (docs/performance.md). */
static inline void
load_taps (const uint8_t * src, vi o, int step, int size, vn32 * a,
    vn32 * b)
{
#if defined(__AVX512BW__) || defined(__AVX2__)
  if (step + size <= 4) {
    const uint32_t low = size == 1 ? 0xff : 0xffff;
#if defined(__AVX512BW__)
    const vn32 w = (vn32) _mm512_i32gather_epi32 ((__m512i) o, src, 1);
#else
    const vn32 w = (vn32) _mm256_i32gather_epi32 ((const int *) src,
        (__m256i) o, 1);
#endif
    *a = w & low;
    *b = (w >> (8 * step)) & low;
    return;
  }
#endif
  for (int i = 0; i < NI; i++) {
    if (size == 1) {
      (*a)[i] = src[o[i]];
      (*b)[i] = src[o[i] + step];
    } else {
      uint16_t v[2];
      memcpy (&v[0], src + o[i], 2);
      memcpy (&v[1], src + o[i] + step, 2);
      (*a)[i] = v[0];
      (*b)[i] = v[1];
    }
  }
}

/* The scalar sample of either size, where a run leaves the vectors. */
static inline void
sample_one (const uint8_t * src, int src_stride, uint8_t * d,
    int pixel_stride, int size, int depth, int shift, int width, int height,
    int32_t mx, int32_t my)
{
  if (size == 1) {
    *d = sd_rectify_sample_strided (src, (size_t) src_stride, pixel_stride,
        width, height, mx, my);
  } else {
    const uint16_t v = sd_rectify_sample16 ((const uint16_t *) (const void *)
        src, (size_t) src_stride / 2, pixel_stride / 2, width, height, depth,
        shift, mx, my);
    memcpy (d, &v, 2);
  }
}

/* Rows y0 .. y1 - 1 of a component of samples of size bytes (1: bytes,
 * all 8 bits; 2: 16-bit words holding depth bits from bit shift), strides
 * in bytes.  Inlined into its two callers, where size is a constant. */
static inline void
rectify_rows (const int32_t * map, const uint8_t * src, int src_stride,
    uint8_t * dst, int dst_stride, int pixel_stride, int size, int depth,
    int shift, int width, int height, int y0, int y1)
{
  const int32_t frac = SD_RECTIFY_ONE - 1;
  const uint32_t one = SD_RECTIFY_ONE, mask = (1u << depth) - 1;
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
          sample_one (src, src_stride, d + (size_t) (x + i) * pixel_stride,
              pixel_stride, size, depth, shift, width, height, mx[i], my[i]);
        continue;
      }
      const vn32 fx = (vn32) (mx & frac), fy = (vn32) (my & frac);
      const vi o = ty * src_stride + tx * pixel_stride;
      vn32 v00, v01, v10, v11;
      load_taps (src, o, pixel_stride, size, &v00, &v01);
      load_taps (src, o + src_stride, pixel_stride, size, &v10, &v11);
      if (size == 2) {
        v00 = (v00 >> shift) & mask;
        v01 = (v01 >> shift) & mask;
        v10 = (v10 >> shift) & mask;
        v11 = (v11 >> shift) & mask;
      }
      /* sd_rectify_blend's arithmetic */
      const vn32 top = v00 * (one - fx) + v01 * fx;
      const vn32 bottom = v10 * (one - fx) + v11 * fx;
      const vn32 r = (top * (one - fy) + bottom * fy +
          (1u << (2 * SD_RECTIFY_FRAC_BITS - 1))) >> (2 * SD_RECTIFY_FRAC_BITS);
      if (size == 1) {
        const vn8 out = __builtin_convertvector (r, vn8);
        if (pixel_stride == 1)
          memcpy (d + x, &out, sizeof (out));
        else
          for (int i = 0; i < NI; i++)
            d[(size_t) (x + i) * pixel_stride] = out[i];
      } else {
        const vn16 out = __builtin_convertvector (r << shift, vn16);
        if (pixel_stride == 2)
          memcpy (d + 2 * (size_t) x, &out, sizeof (out));
        else
          for (int i = 0; i < NI; i++)
            memcpy (d + (size_t) (x + i) * pixel_stride, &out[i], 2);
      }
    }
    for (; x < width; x++)
      sample_one (src, src_stride, d + (size_t) x * pixel_stride,
          pixel_stride, size, depth, shift, width, height, m[2 * x],
          m[2 * x + 1]);
  }
}

void SD_FAST (sd_fast_rectify_rows) (const int32_t * map,
    const uint8_t * src, int src_stride, uint8_t * dst, int dst_stride,
    int pixel_stride, int width, int height, int y0, int y1)
{
  rectify_rows (map, src, src_stride, dst, dst_stride, pixel_stride, 1, 8,
      0, width, height, y0, y1);
}

void SD_FAST (sd_fast_rectify16_rows) (const int32_t * map,
    const uint16_t * src, int src_stride, uint16_t * dst, int dst_stride,
    int pixel_stride, int depth, int shift, int width, int height, int y0,
    int y1)
{
  rectify_rows (map, (const uint8_t *) src, src_stride, (uint8_t *) dst,
      dst_stride, 2 * pixel_stride, 2, depth, shift, width, height, y0, y1);
}

#else

void SD_FAST (sd_fast_rectify_rows) (const int32_t * map,
    const uint8_t * src, int src_stride, uint8_t * dst, int dst_stride,
    int pixel_stride, int width, int height, int y0, int y1)
{
  sd_rectify_component_rows (map, src, src_stride, dst, dst_stride,
      pixel_stride, width, height, y0, y1);
}

void SD_FAST (sd_fast_rectify16_rows) (const int32_t * map,
    const uint16_t * src, int src_stride, uint16_t * dst, int dst_stride,
    int pixel_stride, int depth, int shift, int width, int height, int y0,
    int y1)
{
  sd_rectify_component16_rows (map, src, src_stride, dst, dst_stride,
      pixel_stride, depth, shift, width, height, y0, y1);
}

#endif
