/* The vectors of the fast stages' instruction-set builds (sd-fast.h):
 * LANES int16 lanes, as wide as the build's registers, and the lane-wise
 * operations GCC does not find in their generic form.  Include only from a
 * source built once per instruction set. */
#ifndef SD_FAST_VECTOR_H
#define SD_FAST_VECTOR_H

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <immintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#endif

/* GCC warns that vectors passed by value change the ABI without AVX:
 * every function that does so here is static and inlined */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#define SD_FAST_STR2(x) #x
#define SD_FAST_STR(x) SD_FAST_STR2 (x)
#define SD_FAST_NAME_OF_ISA SD_FAST_STR (SD_FAST_ISA)

/* A vector as wide as the build's registers, of int16 lanes. */
#if defined(__AVX512BW__)
#define LANES 32
#elif defined(__AVX2__)
#define LANES 16
#else
#define LANES 8
#endif

typedef int16_t vs __attribute__((vector_size (LANES * 2)));
typedef uint16_t vu __attribute__((vector_size (LANES * 2)));
typedef uint8_t vb __attribute__((vector_size (LANES)));
/* As wide, of int32 lanes (LANES / 2 of them). */
typedef int32_t vi __attribute__((vector_size (LANES * 2)));
/* As wide, of uint8 lanes (2 LANES of them). */
typedef uint8_t vbw __attribute__((vector_size (LANES * 2)));
/* As wide, of float lanes (FLANES of them). */
#define FLANES (LANES / 2)
typedef float vf __attribute__((vector_size (FLANES * 4)));

static inline vs
load (const int16_t * p)
{
  vs v;
  memcpy (&v, p, sizeof (v));
  return v;
}

static inline void
store (int16_t * p, vs v)
{
  memcpy (p, &v, sizeof (v));
}

static inline vi
load32 (const int32_t * p)
{
  vi v;
  memcpy (&v, p, sizeof (v));
  return v;
}

static inline void
store32 (int32_t * p, vi v)
{
  memcpy (p, &v, sizeof (v));
}

static inline vf
loadf (const float *p)
{
  vf v;
  memcpy (&v, p, sizeof (v));
  return v;
}

static inline vb
load_bytes (const uint8_t * p)
{
  vb v;
  memcpy (&v, p, sizeof (v));
  return v;
}

/* Lane-wise minimum: the instruction where there is one (GCC does not find
 * it in the generic form, which costs a compare and three logic ops). */
static inline vs
vmin (vs a, vs b)
{
#if defined(__AVX512BW__)
  return (vs) _mm512_min_epi16 ((__m512i) a, (__m512i) b);
#elif defined(__AVX2__)
  return (vs) _mm256_min_epi16 ((__m256i) a, (__m256i) b);
#elif defined(__SSE2__)
  return (vs) _mm_min_epi16 ((__m128i) a, (__m128i) b);
#elif defined(__ARM_NEON)
  return vminq_s16 (a, b);
#else
  const vs a_less = (vs) (a < b);
  return (a & a_less) | (b & ~a_less);
#endif
}

/* Lane-wise maximum. */
static inline vs
vmax (vs a, vs b)
{
#if defined(__AVX512BW__)
  return (vs) _mm512_max_epi16 ((__m512i) a, (__m512i) b);
#elif defined(__AVX2__)
  return (vs) _mm256_max_epi16 ((__m256i) a, (__m256i) b);
#elif defined(__SSE2__)
  return (vs) _mm_max_epi16 ((__m128i) a, (__m128i) b);
#elif defined(__ARM_NEON)
  return vmaxq_s16 (a, b);
#else
  const vs a_less = (vs) (a < b);
  return (b & a_less) | (a & ~a_less);
#endif
}

static inline vs
splat (int v)
{
  return (vs) { } + (int16_t) v;
}

/* Lane-wise unsigned minimum (the sums are uint16). */
static inline vu
vminu (vu a, vu b)
{
#if defined(__AVX512BW__)
  return (vu) _mm512_min_epu16 ((__m512i) a, (__m512i) b);
#elif defined(__AVX2__)
  return (vu) _mm256_min_epu16 ((__m256i) a, (__m256i) b);
#elif defined(__SSE4_1__)
  return (vu) _mm_min_epu16 ((__m128i) a, (__m128i) b);
#elif defined(__ARM_NEON)
  return vminq_u16 (a, b);
#else
  const vu a_less = (vu) (a < b);
  return (a & a_less) | (b & ~a_less);
#endif
}

/* Lane-wise uint8 minimum. */
static inline vbw
vminu8 (vbw a, vbw b)
{
#if defined(__AVX512BW__)
  return (vbw) _mm512_min_epu8 ((__m512i) a, (__m512i) b);
#elif defined(__AVX2__)
  return (vbw) _mm256_min_epu8 ((__m256i) a, (__m256i) b);
#elif defined(__SSE2__)
  return (vbw) _mm_min_epu8 ((__m128i) a, (__m128i) b);
#elif defined(__ARM_NEON)
  return vminq_u8 (a, b);
#else
  const vbw a_less = (vbw) (a < b);
  return (a & a_less) | (b & ~a_less);
#endif
}

/* Lane-wise int32 minimum and maximum. */
static inline vi
vmin32 (vi a, vi b)
{
#if defined(__AVX512F__)
  return (vi) _mm512_min_epi32 ((__m512i) a, (__m512i) b);
#elif defined(__AVX2__)
  return (vi) _mm256_min_epi32 ((__m256i) a, (__m256i) b);
#elif defined(__SSE4_1__)
  return (vi) _mm_min_epi32 ((__m128i) a, (__m128i) b);
#elif defined(__ARM_NEON)
  return vminq_s32 (a, b);
#else
  const vi a_less = (vi) (a < b);
  return (a & a_less) | (b & ~a_less);
#endif
}

static inline vi
vmax32 (vi a, vi b)
{
#if defined(__AVX512F__)
  return (vi) _mm512_max_epi32 ((__m512i) a, (__m512i) b);
#elif defined(__AVX2__)
  return (vi) _mm256_max_epi32 ((__m256i) a, (__m256i) b);
#elif defined(__SSE4_1__)
  return (vi) _mm_max_epi32 ((__m128i) a, (__m128i) b);
#elif defined(__ARM_NEON)
  return vmaxq_s32 (a, b);
#else
  const vi a_less = (vi) (a < b);
  return (b & a_less) | (a & ~a_less);
#endif
}

/* A store to memory that bypasses the caches, for volumes far larger than
 * them that are read back only by a later pass: a plain store first reads
 * the line it writes (write-allocate), which doubles their traffic.  p is
 * aligned to the vector's width.  Such stores are ordered with the others
 * only by streamed_stores_done (), which the writing thread calls before
 * another thread may read them. */
static inline void
store_streamed (uint16_t * p, vu v)
{
#if defined(__AVX512BW__)
  _mm512_stream_si512 ((void *) p, (__m512i) v);
#elif defined(__AVX2__)
  _mm256_stream_si256 ((__m256i *) p, (__m256i) v);
#elif defined(__SSE2__)
  _mm_stream_si128 ((__m128i *) p, (__m128i) v);
#else
  memcpy (p, &v, sizeof (v));
#endif
}

static inline void
streamed_stores_done (void)
{
#if defined(__SSE2__)
  _mm_sfence ();
#endif
}

#endif
