/* Temporal filtering of a disparity or depth stream (GRAY16, 0 = invalid).
 *
 * Stereo matching decides each frame on its own, so where the match is
 * weak (little texture, noise) a still scene's values wander from frame to
 * frame and holes blink.  The filter keeps each pixel's last output: a new
 * value within delta of it (the same surface, with noise) moves it part of
 * the way (alpha); a larger change (an edge moved, or the scene did) is
 * taken at once, so motion leaves no trail; a pixel the new frame has no
 * value for may keep its last one for a few frames (persistence). */
#ifndef SD_TEMPORAL_H
#define SD_TEMPORAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct
{
  int alpha;                    /* the new value's weight, in 1/256 (1 .. 256;
                                 * 256 keeps nothing of the past) */
  int delta;                    /* the largest change still smoothed, in the
                                 * stream's units (0 .. 65535) */
  int persistence;              /* frames a pixel keeps its last value while
                                 * the stream has none for it (0 .. 255) */
} SdTemporalParams;

/* What the filter remembers of the frames before. */
typedef struct
{
  int width, height;
  uint16_t *value;              /* the last output of each pixel */
  uint8_t *held;                /* frames each has kept its value while invalid */
} SdTemporal;

/* An empty history; sd_temporal_clear() frees it. */
void sd_temporal_init (SdTemporal * t);
void sd_temporal_clear (SdTemporal * t);

/* Forgets the frames before (a seek, a discontinuity): the next frame
 * passes unchanged. */
void sd_temporal_reset (SdTemporal * t);

/* Filters the width x height frame in place (rows stride bytes apart) and
 * remembers it; a frame of another size starts a new history.  False when
 * the memory for that history cannot be had (the frame is left as it
 * was). */
bool sd_temporal_apply (SdTemporal * t, const SdTemporalParams * p,
    uint16_t * frame, int width, int height, size_t stride);

/* One row of it, as the reference computes it: row holds the new values
 * and gets the output, value and held are the row's history. */
void sd_temporal_row (const SdTemporalParams * p, uint16_t * row,
    uint16_t * value, uint8_t * held, int width);

#ifdef __cplusplus
}
#endif
#endif
