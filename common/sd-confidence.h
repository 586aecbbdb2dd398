/* The per-pixel confidence (GRAY8, the element's src_confidence pad), one
 * set of functions for the CPU and CUDA backends so that both write the
 * same bits.
 *
 * Each read-out leaves a margin of 0 .. 255 per pixel: how clearly the best
 * disparity beats the best one more than one index away (the neighbours of
 * the best are the same surface, as the uniqueness test says).
 * - SGM: 255 * (S2 - S1) / S2 for the smallest aggregated sum S1 and that
 *   second one S2: 1 - S1 / S2, the peak ratio of the confidence
 *   literature, scale-free whatever the penalties.
 * - BP: beliefs have no zero (messages are shifted to zero mean), so the
 *   gap G = B2 - B1 is measured against the cost of one pixel that matches
 *   nothing, T = data-weight * data-trunc: 255 * G / (G + T).
 * A pixel with no second candidate (two or three disparities) gets 255.
 *
 * After the left-right check and the median, a pixel's confidence is 0
 * where the output holds no match (invalid, or a disparity of 0, which the
 * output cannot tell from invalid), also where fill-holes then writes a
 * value: a filled pixel was never matched.  Elsewhere it is the margin
 * scaled by how well the right view agrees: with lr-check L and the right
 * partner's disparity dR, margin * (L + 1 - |d - dR|) / (L + 1), and at
 * least 1, so that 0 keeps meaning "no match". */
#ifndef SD_CONFIDENCE_H
#define SD_CONFIDENCE_H

#include <stdint.h>

#ifdef __CUDACC__
#define SD_CONFIDENCE_FN __host__ __device__ static inline
#else
#define SD_CONFIDENCE_FN static inline
#endif

/* The SGM margin of best sum s1 and second sum s2 (s2 >= s1); has_second
 * false when no index lies more than one away from the best. */
SD_CONFIDENCE_FN uint8_t
sd_confidence_sgm_margin (unsigned s1, unsigned s2, int has_second)
{
  if (!has_second)
    return 255;
  return s2 == 0 ? 0 : (uint8_t) (255u * (s2 - s1) / s2);
}

/* The BP margin of the gap between the second and the best belief
 * (gap >= 0) for data-weight * data-trunc = scale (> 0).  Each float
 * operation is rounded to nearest on both sides, and nothing may fuse. */
SD_CONFIDENCE_FN uint8_t
sd_confidence_bp_margin (float gap, float scale, int has_second)
{
  if (!has_second)
    return 255;
#ifdef __CUDA_ARCH__
  const int m = __float2int_rz (__fdiv_rn (__fmul_rn (255.0f, gap),
          __fadd_rn (gap, scale)));
#else
  const int m = (int) (255.0f * gap / (gap + scale));
#endif
  return (uint8_t) (m > 255 ? 255 : m);
}

/* The confidence of a pixel whose output holds a match: its margin, scaled
 * by the left-right agreement lr_diff = |d - dR| <= lr_check (lr_check < 0:
 * the check is off and the margin stands alone). */
SD_CONFIDENCE_FN uint8_t
sd_confidence_value (int margin, int lr_check, int lr_diff)
{
  const int c = lr_check < 0 ? margin :
      margin * (lr_check + 1 - lr_diff) / (lr_check + 1);
  return (uint8_t) (c < 1 ? 1 : c);
}

#endif
