#include "sd-temporal.h"
#include "sd-temporal-row.h"
#include "fast/sd-fast.h"

#include <stdlib.h>
#include <string.h>

void
sd_temporal_init (SdTemporal * t)
{
  memset (t, 0, sizeof (*t));
}

void
sd_temporal_clear (SdTemporal * t)
{
  free (t->value);
  free (t->held);
  sd_temporal_init (t);
}

void
sd_temporal_reset (SdTemporal * t)
{
  const size_t n = (size_t) t->width * t->height;
  if (n) {
    memset (t->value, 0, n * sizeof (*t->value));
    memset (t->held, 0, n);
  }
}

static bool
fit (SdTemporal * t, int width, int height)
{
  if (t->value && t->width == width && t->height == height)
    return true;
  sd_temporal_clear (t);
  const size_t n = (size_t) width * height;
  t->value = calloc (n, sizeof (*t->value));
  t->held = calloc (n, 1);
  if (!t->value || !t->held) {
    sd_temporal_clear (t);
    return false;
  }
  t->width = width;
  t->height = height;
  return true;
}

void
sd_temporal_row (const SdTemporalParams * p, uint16_t * row, uint16_t * value,
    uint8_t * held, int width)
{
  sd_temporal_filter_row (p, row, value, held, width);
}

bool
sd_temporal_apply (SdTemporal * t, const SdTemporalParams * p,
    uint16_t * frame, int width, int height, size_t stride)
{
  if (!fit (t, width, height))
    return false;
  const SdCpuStages *stages = sd_fast_pick_stages ();
  for (int y = 0; y < height; y++)
    stages->temporal_row (p, (uint16_t *) ((uint8_t *) frame +
            (size_t) y * stride), t->value + (size_t) y * width,
        t->held + (size_t) y * width, width);
  return true;
}
