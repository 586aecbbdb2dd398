/* Speckles: before fill-holes fills the invalid pixels, the small isolated
 * segments of a disparity map count as holes too.  A segment is a
 * 4-connected set of valid pixels (disparity above 0: fill-holes treats 0
 * as a hole) whose neighbours differ by at most SD_SPECKLE_RANGE (1 pixel
 * in the engine's 1/16 units); one with fewer than sd_speckle_min_size()
 * pixels is a speckle: a patch matched on its own, almost always wrong,
 * which filling from its neighbours beats.  One rule for the CPU and CUDA
 * backends so that both remove the same pixels.
 *
 * The size is a share of the frame, so that it means the same at every
 * resolution; 1/4000 and the range were chosen on every shared set at once
 * (docs/algorithms.md, "Hole filling"). */
#ifndef SD_SPECKLE_H
#define SD_SPECKLE_H

#include <stdint.h>

#ifdef __CUDACC__
#define SD_SPECKLE_FN __host__ __device__ static inline
#else
#define SD_SPECKLE_FN static inline
#endif

#define SD_SPECKLE_RANGE 16
#define SD_SPECKLE_AREA_SHARE 4000

/* Segments of fewer pixels than this are speckles (0: none is). */
SD_SPECKLE_FN int
sd_speckle_min_size (int width, int height)
{
  return (int) ((int64_t) width * height / SD_SPECKLE_AREA_SHARE);
}

/* Whether neighbouring disparities a and b are in one segment. */
SD_SPECKLE_FN int
sd_speckle_joined (int a, int b)
{
  return a > 0 && b > 0 && (a > b ? a - b : b - a) <= SD_SPECKLE_RANGE;
}

#endif
