/* The middle of nine values by a fixed network, for the 3x3 median of the
 * disparities: one network for the CPU's vector stage (fast/fast-median.c)
 * and the CUDA kernel (cuda/sd-cuda-refine.cu), 30 minimums and maximums.
 *
 * The reference (sd_cpu_median_at) takes the lower median of the valid
 * values among the nine.  With m of the nine invalid, replacing ceil(m / 2)
 * of them by a value below all others and the other floor(m / 2) by one
 * above all puts that value in the middle of all nine: which invalid ones
 * get which does not matter, only the count.  The caller does that, since
 * its values are scalars or vectors.  The median of nine is then: sort each
 * row's three, and take the middle of (the largest of the three smallest,
 * the middle of the three middles, the smallest of the three largest).
 *
 * The includer defines SD_MEDIAN9_T, the value type, and SD_MEDIAN9_MIN
 * and SD_MEDIAN9_MAX, its minimum and maximum. */
#ifndef SD_MEDIAN9_H
#define SD_MEDIAN9_H

#ifdef __CUDACC__
#define SD_MEDIAN9_FN __device__ static __forceinline__
#else
#define SD_MEDIAN9_FN static inline
#endif

/* a, b = the smaller, the larger */
SD_MEDIAN9_FN void
sd_median9_order (SD_MEDIAN9_T * a, SD_MEDIAN9_T * b)
{
  const SD_MEDIAN9_T lo = SD_MEDIAN9_MIN (*a, *b);
  *b = SD_MEDIAN9_MAX (*a, *b);
  *a = lo;
}

SD_MEDIAN9_FN SD_MEDIAN9_T
sd_median9_middle3 (SD_MEDIAN9_T a, SD_MEDIAN9_T b, SD_MEDIAN9_T c)
{
  return SD_MEDIAN9_MAX (SD_MEDIAN9_MIN (a, b),
      SD_MEDIAN9_MIN (SD_MEDIAN9_MAX (a, b), c));
}

/* The middle of v[0 .. 8], three rows of three; reorders v. */
SD_MEDIAN9_FN SD_MEDIAN9_T
sd_median9 (SD_MEDIAN9_T * v)
{
  for (int r = 0; r < 9; r += 3) {
    sd_median9_order (&v[r], &v[r + 1]);
    sd_median9_order (&v[r + 1], &v[r + 2]);
    sd_median9_order (&v[r], &v[r + 1]);
  }
  return sd_median9_middle3 (SD_MEDIAN9_MAX (SD_MEDIAN9_MAX (v[0], v[3]),
          v[6]), sd_median9_middle3 (v[1], v[4], v[7]),
      SD_MEDIAN9_MIN (SD_MEDIAN9_MIN (v[2], v[5]), v[8]));
}

#endif
