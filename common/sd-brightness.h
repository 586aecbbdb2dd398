/* Brightness matching (`match-brightness`): the right view's levels mapped
 * so that its histogram follows the left's, where the cost compares
 * brightness.
 *
 * Two cameras rarely see the world equally bright: their exposure, gain,
 * response curve and vignetting differ.  The census counts only which
 * neighbour is darker, so such differences leave it nearly unchanged, but
 * census-ad's absolute difference (and cost=ad) read them as mismatches:
 * with the right view at 0.75 of the left's brightness, the shared sets'
 * mean bad>1 rose from 13.7 to 16.1 % for the SGM defaults and from 14.0
 * to 52.8 % for hbp's (docs/algorithms.md, "Brightness matching").
 *
 * The map is built from the whole frame's luma (after rectification) and
 * applied to the prefiltered right view after its census, so it feeds the
 * absolute differences only: a map merges some levels, and the census
 * would read the ties it makes as lost bits.
 *
 * The map is the one that gives each right level the left level at the
 * same place in the frame's order of brightness: for right level r, the
 * middle of its pixels' ranks, mid(r) = count(< r) + count(r) / 2, as a
 * share of the right frame; the left level is the smallest l whose share
 * of left pixels at or below it reaches that.  Integers only (ranks
 * doubled, shares cross-multiplied in 64 bits), so the CPU and the GPU
 * build the same table.  One function for both: the level of right level
 * r, from the two views' cumulative histograms (cum[l] = pixels at or
 * below level l). */
#ifndef SD_BRIGHTNESS_H
#define SD_BRIGHTNESS_H

#include <stdint.h>

#ifdef __CUDACC__
#define SD_BRIGHTNESS_FN __host__ __device__ static inline
#else
#define SD_BRIGHTNESS_FN static inline
#endif

#define SD_BRIGHTNESS_LEVELS 256

SD_BRIGHTNESS_FN uint8_t
sd_brightness_level (const uint32_t * cum_left, const uint32_t * cum_right,
    int r)
{
  const uint64_t n_left = cum_left[SD_BRIGHTNESS_LEVELS - 1];
  const uint64_t n_right = cum_right[SD_BRIGHTNESS_LEVELS - 1];
  /* twice the middle rank of level r: below + at, where at = below + count */
  const uint64_t mid2 = (r > 0 ? cum_right[r - 1] : 0) + cum_right[r];
  /* the smallest l with 2 cum_left[l] / n_left >= mid2 / n_right; l = 255
   * always qualifies (mid2 <= 2 n_right) */
  int lo = 0, hi = SD_BRIGHTNESS_LEVELS - 1;
  while (lo < hi) {
    const int l = (lo + hi) / 2;
    if (2 * (uint64_t) cum_left[l] * n_right >= mid2 * n_left)
      hi = l;
    else
      lo = l + 1;
  }
  return (uint8_t) lo;
}

#endif
