/* The temporal filter's row (sd-temporal-row.h), built for this
 * instruction set: the compiler vectorizes it (0.91 ms a noisy 1920x1080
 * frame with AVX2 against 2.4 ms with the baseline's SSE2 on a 2-core
 * EPYC, docs/performance.md). */
#include "sd-fast.h"

#include "../sd-temporal-row.h"

void
SD_FAST (sd_fast_temporal_row) (const SdTemporalParams * p, uint16_t * row,
    uint16_t * value, uint8_t * held, int width)
{
  sd_temporal_filter_row (p, row, value, held, width);
}
