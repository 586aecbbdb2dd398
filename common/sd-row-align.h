/* Rows that do not line up: how far the right view's rows are offset from
 * the left's, measured from one pair.  A calibration a little off, or two
 * cameras that moved on their bar since they were calibrated, leaves a
 * point's match a fraction of a row or more above or below its row, and
 * every window of the pipeline then compares other pixels (half a row
 * costs the shipped defaults 2 points of bad>1 on the shared sets, a whole
 * row half the map: docs/algorithms.md, "Rows that do not line up").
 *
 * The measurement: on a grid of textured 11x11 patches of the left view,
 * the best zero-mean normalized cross-correlation over the disparity range
 * and SD_ROW_ALIGN_SEARCH rows up and down; patches whose best column is
 * not clearly unique are dropped, and the row of the others is refined by
 * a parabola through the best and its two neighbours.  Their offsets,
 * against their columns and rows, give a plane (the medians of the slopes
 * between every two patches of a row and of a column, then the median of
 * what is left): a constant offset (a camera moved up or down), a slope
 * along the rows (one turned about its axis, a hundredth of a degree per
 * 0.00017 rows a column) and one down the columns (one whose focal length
 * differs: a scale of the whole view, 0.5 % moving the rows 0.005 rows a
 * row from the middle).  The engine undoes them through the
 * rectification stage (sd_rectification_realign_right, sd-rectify.h),
 * the scale across the columns too. */
#ifndef SD_ROW_ALIGN_H
#define SD_ROW_ALIGN_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Rows searched above and below a patch's own: offsets up to this (less a
 * half) are measured. */
#define SD_ROW_ALIGN_SEARCH 4
/* Fewer agreeing patches than this measure nothing. */
#define SD_ROW_ALIGN_MIN_PATCHES 16
/* Pairs measured in a row before the engine gives up when too few patches
 * agree (a camera's first frames may be dark): a second of video */
#define SD_ROW_ALIGN_ATTEMPTS 30
/* Offsets smaller than this everywhere across the frame are left alone:
 * the measurement's own error on pairs that line up was up to 0.15 rows
 * on the shared sets, and moving the rows resamples the right view. */
#define SD_ROW_ALIGN_MIN_OFFSET 0.25

typedef struct
{
  /* at column x, the right view's row y + offset + slope (x - (width - 1)
   * / 2) + scale (y - (height - 1) / 2) holds what the left view's row y
   * does */
  double offset, slope, scale;
  int patches;                  /* patches that voted */
  bool measured;                /* enough patches agreed */
} SdRowOffset;

/* The largest offset across a frame width x height, in rows. */
double sd_row_offset_largest (const SdRowOffset * rows, int width,
    int height);
/* The turn of the slope, in degrees (positive: the right view's rows
 * descend to the right against the left's). */
double sd_row_offset_degrees (const SdRowOffset * rows);

/* Measures left against right (packed GRAY8, width x height), matches
 * searched from min_disparity over num_disparities columns. */
SdRowOffset sd_row_offset_measure (const uint8_t * left, const uint8_t * right,
    int width, int height, int min_disparity, int num_disparities);

#ifdef __cplusplus
}
#endif

#endif
