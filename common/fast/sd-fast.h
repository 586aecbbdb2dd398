/* The fast CPU stages: the reference's arithmetic (common/cpu/), bit for
 * bit, spread over threads (OpenMP) and vectorized over disparities with
 * GCC/clang vector extensions.  The cpu backend runs these where they exist
 * and the reference stages elsewhere; the reference backend runs only the
 * reference (tests/engine/test-cpu-agreement holds them together). */
#ifndef SD_FAST_H
#define SD_FAST_H

#include "../cpu/sd-cpu.h"

/* Extra bytes the cost volume needs after its end: the aggregation reads
 * whole vectors of costs. */
#define SD_FAST_COST_PADDING 32

/* sd_cpu_cost_volume, threaded, with a fast census for the pixels whose
 * window lies inside the image. */
void sd_fast_cost_volume (const SdParams * params, const uint8_t * left,
    const uint8_t * right, uint64_t * census_left, uint64_t * census_right,
    uint8_t * cost, int width, int height);

/* Bytes of scratch sd_fast_sgm needs. */
size_t sd_fast_sgm_scratch_bytes (const SdParams * params, int width);
/* sd_cpu_sgm: same sum, bit for bit. */
void sd_fast_sgm (const SdParams * params, const uint8_t * cost,
    const uint8_t * guide, uint16_t * sum, uint16_t * scratch, int width,
    int height);

/* sd_cpu_wta and sd_cpu_right_disparity, threaded over rows. */
void sd_fast_wta (const SdParams * params, const uint16_t * sum,
    int16_t * disp, int width, int height);
void sd_fast_right_disparity (const SdParams * params, const uint16_t * sum,
    int16_t * right_disp, int width, int height);

#endif
