/* The output contract's values, one function for the CPU and the CUDA
 * backends (so that both write the same bits): disparity 16 * d, or depth
 * in millimetres from focal length times baseline. */
#ifndef SD_OUTPUT_H
#define SD_OUTPUT_H

#include <math.h>
#include <stdint.h>

#include "sd-params.h"

#ifdef __CUDACC__
#define SD_OUTPUT_FN __host__ __device__ static inline
#else
#define SD_OUTPUT_FN static inline
#endif

/* focal_length * baseline * 16 rounded to an integer (a disparity is
 * 16 * d in the engine), or 0 for disparity output.  Computed once on the
 * host, in double. */
static inline uint64_t
sd_output_depth_scale (const SdParams * p)
{
  if (p->output != SD_OUTPUT_DEPTH)
    return 0;
  return (uint64_t) llround ((double) p->focal_length * p->baseline * 16.0);
}

/* The smallest and largest engine disparity (16 d) the output holds: what
 * subpixel refinement gives at either end of the range searched
 * (docs/output-format.md), and at least 1 (0 reads as invalid). */
SD_OUTPUT_FN void
sd_output_disparity_bounds (const SdParams * p, int *lo, int *hi)
{
  const int low = 16 * p->min_disparity - 8;
  *lo = low < 1 ? 1 : low;
  *hi = 16 * (p->min_disparity + p->num_disparities - 1) + 8;
}

/* The output value of an engine disparity disp (16 * d, or -1 invalid):
 * disparity output (depth_scale 0) gives disp, 0 when invalid; depth
 * output gives round(depth_scale / disp) millimetres, at least 1 (0 is
 * invalid), 65535 for that or farther, including d = 0. */
SD_OUTPUT_FN uint16_t
sd_output_value (int disp, uint64_t depth_scale)
{
  if (disp < 0)
    return 0;
  if (!depth_scale)
    return (uint16_t) disp;
  if (disp == 0)
    return 65535;
  const uint64_t mm = (depth_scale + (uint64_t) disp / 2) / (uint64_t) disp;
  return mm >= 65535 ? 65535 : mm < 1 ? 1 : (uint16_t) mm;
}

#endif
