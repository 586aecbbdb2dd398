/* The census-ad matching cost, one function for the CPU and CUDA backends
 * so that both compute the same bits.
 *
 * A census window that straddles an object's edge matches the object's
 * texture at the background pixels beside it (foreground fattening); the
 * absolute difference of the pixels themselves knows no window.  Three
 * parts census to one part AD, the AD truncated at 16 grey levels and
 * scaled to the census range, was chosen on every shared set at once
 * (docs/algorithms.md, "Defaults"). */
#ifndef SD_COST_H
#define SD_COST_H

#ifdef __CUDACC__
#define SD_COST_FN __host__ __device__ static inline
#else
#define SD_COST_FN static inline
#endif

#define SD_CENSUS_AD_TRUNC 16

/* The cost of Hamming distance h and absolute difference ad for a census
 * whose largest distance is census_max; at most census_max.  Unsigned: the
 * division by 16 is then a shift. */
SD_COST_FN int
sd_cost_census_ad (unsigned h, unsigned ad, unsigned census_max)
{
  const unsigned t = ad < SD_CENSUS_AD_TRUNC ? ad : SD_CENSUS_AD_TRUNC;
  return (int) ((3 * h + t * census_max / SD_CENSUS_AD_TRUNC + 2) >> 2);
}

#endif
