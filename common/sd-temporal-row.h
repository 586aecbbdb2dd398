/* One row of the temporal filter (sd-temporal.h), included by its
 * reference (sd-temporal.c) and by the fast stages (fast/fast-temporal.c),
 * which build the same code once per instruction set.
 *
 * Each pixel: its last output (value), the new one (row, 0: none;
 * overwritten with the output), how long it has held its value.  Written
 * with selects rather than branches and with restrict pointers, so that the
 * compiler runs the row in vectors. */
#ifndef SD_TEMPORAL_ROW_H
#define SD_TEMPORAL_ROW_H

#include "sd-temporal.h"

static inline void
sd_temporal_filter_row (const SdTemporalParams * p, uint16_t * restrict row,
    uint16_t * restrict value, uint8_t * restrict held, int width)
{
  const int alpha = p->alpha, delta = p->delta, persistence = p->persistence;
  for (int x = 0; x < width; x++) {
    const int s = value[x], in = row[x], h = held[x];
    const int d = in - s;
    const int magnitude = d < 0 ? -d : d;
    /* s + alpha d, rounded half away from zero: between s and in */
    const int step = (magnitude * alpha + 128) >> 8;
    const int smoothed = s + (d < 0 ? -step : step);
    const bool close = s != 0 && magnitude <= delta;
    const bool hold = s != 0 && h < persistence;
    const int out = in ? (close ? smoothed : in) : hold ? s : 0;
    held[x] = (uint8_t) (in ? 0 : hold ? h + 1 : h);
    row[x] = value[x] = (uint16_t) out;
  }
}

#endif
