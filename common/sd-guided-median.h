/* The image-guided weighted median (the guided-median property), the last
 * stage before the output: each valid disparity becomes the weighted
 * median of the valid disparities sampled around it, on a grid of
 * SD_GUIDED_MEDIAN_SIDE x SD_GUIDED_MEDIAN_SIDE samples SD_GUIDED_MEDIAN_STEP
 * pixels apart, each weighted by how alike its left luma is to the
 * centre's.  A disparity edge then follows the image's edge: a sample
 * across it, on another surface, weighs little.  Holes (invalid, or 0 as
 * fill-holes counts it) are neither counted nor changed, and samples
 * outside the image are not counted, so the invalid pixels stay as they
 * are.
 *
 * The result is the lower weighted median: the smallest sampled value v
 * whose samples at or below v weigh at least half of all of them.  With
 * integer weights it is exact, so every backend gives the same bits.  The
 * backends sort keys value << SD_GUIDED_MEDIAN_WEIGHT_BITS | weight.
 *
 * The grid (5 x 5 samples 3 pixels apart: 25 samples reaching 6 pixels),
 * the weight and its falloff were chosen on every shared set at once
 * (docs/algorithms.md, "The guided median"): as accurate as a full 9 x 9
 * window, at a third of its samples. */
#ifndef SD_GUIDED_MEDIAN_H
#define SD_GUIDED_MEDIAN_H

/* the sorting network's loops unroll completely: the keys then stay in
 * registers */
#ifdef __CUDACC__
#define SD_GUIDED_MEDIAN_FN __host__ __device__ static inline
#define SD_GUIDED_MEDIAN_UNROLL _Pragma ("unroll")
#else
#define SD_GUIDED_MEDIAN_FN static inline
#define SD_GUIDED_MEDIAN_UNROLL _Pragma ("GCC unroll 32")
#endif

#define SD_GUIDED_MEDIAN_SIDE 5
#define SD_GUIDED_MEDIAN_STEP 3
#define SD_GUIDED_MEDIAN_SAMPLES (SD_GUIDED_MEDIAN_SIDE * SD_GUIDED_MEDIAN_SIDE)
/* how far the grid reaches from its centre, in pixels */
#define SD_GUIDED_MEDIAN_REACH \
  (SD_GUIDED_MEDIAN_SIDE / 2 * SD_GUIDED_MEDIAN_STEP)
/* luma steps of this or more give a sample no weight */
#define SD_GUIDED_MEDIAN_FALLOFF 32
/* the weights take 0 .. SD_GUIDED_MEDIAN_FALLOFF^2 (1024): 11 bits */
#define SD_GUIDED_MEDIAN_WEIGHT_BITS 11

/* The weight of a sample of luma b around a centre of luma a: a falling
 * parabola, as a Gaussian of sigma 10 weighs them (measured the same) but
 * in integers. */
SD_GUIDED_MEDIAN_FN int
sd_guided_median_weight (int a, int b)
{
  const int step = a > b ? a - b : b - a;
  const int t = step < SD_GUIDED_MEDIAN_FALLOFF ?
      SD_GUIDED_MEDIAN_FALLOFF - step : 0;
  return t * t;
}

/* Sorts the SD_GUIDED_MEDIAN_SAMPLES keys k[0 ..] with order (a, b), which
 * puts the smaller of two keys in a: Batcher's odd-even merge sort, whose
 * stage (p, s) merges runs of p keys by comparing keys s apart, the
 * comparators that would reach past the last key left out.  A fixed
 * network, the same for every pixel, so that vector lanes and GPU threads
 * run it without branches; every loop has a constant count, so that the
 * compilers unroll it whole and the keys stay in registers. */
#define SD_GUIDED_MEDIAN_SORT_LEVELS 5  /* 2^5 >= SD_GUIDED_MEDIAN_SAMPLES */
#define SD_GUIDED_MEDIAN_SORT(k, order)                                       \
  SD_GUIDED_MEDIAN_UNROLL                                                     \
  for (int lp_ = 0; lp_ < SD_GUIDED_MEDIAN_SORT_LEVELS; lp_++)                \
    SD_GUIDED_MEDIAN_UNROLL                                                   \
    for (int ls_ = 0; ls_ <= lp_; ls_++)                                      \
      SD_GUIDED_MEDIAN_UNROLL                                                 \
      for (int a_ = 0; a_ < SD_GUIDED_MEDIAN_SAMPLES; a_++)                   \
        if (sd_guided_median_comparator (1 << lp_, (1 << lp_) >> ls_, a_))    \
          order (&(k)[a_], &(k)[a_ + ((1 << lp_) >> ls_)])

/* Whether stage (p, s) of the network compares key a with key a + s. */
SD_GUIDED_MEDIAN_FN int
sd_guided_median_comparator (int p, int s, int a)
{
  const int first = s % p;      /* the stage's first comparator */
  return a >= first && (a - first) % (2 * s) < s
      && a + s < SD_GUIDED_MEDIAN_SAMPLES && a / (2 * p) == (a + s) / (2 * p);
}

#endif
