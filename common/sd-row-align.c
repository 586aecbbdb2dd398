/* Measuring the offset between the views' rows (see sd-row-align.h). */
#include "sd-row-align.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RADIUS 5                /* 11x11 patches */
#define SIDE (2 * RADIUS + 1)
#define AREA (SIDE * SIDE)
#define PATCHES 400             /* about this many on the grid */
#define MIN_STEP 24             /* grid step at least, pixels */
#define MIN_TEXTURE 6.0         /* standard deviation of a patch, levels */
#define WORST_COST 0.3          /* 1 - correlation of a patch's best match */
#define UNIQUE_MARGIN 0.1       /* another column within this: ambiguous */
#define MAX_SPREAD 0.5          /* median distance of the votes, rows */

/* Sums and squares of the right view over any window, from integral
 * images of (width + 1) x (height + 1). */
typedef struct
{
  uint64_t *sum, *sq;
  int stride;
} Integral;

static bool
integral_new (Integral * in, const uint8_t * img, int width, int height)
{
  const size_t n = (size_t) (width + 1) * (height + 1);
  in->stride = width + 1;
  in->sum = calloc (n, sizeof (uint64_t));
  in->sq = calloc (n, sizeof (uint64_t));
  if (!in->sum || !in->sq)
    return false;
  for (int y = 0; y < height; y++) {
    uint64_t row = 0, row_sq = 0;
    for (int x = 0; x < width; x++) {
      const uint64_t v = img[(size_t) y * width + x];
      row += v;
      row_sq += v * v;
      const size_t i = (size_t) (y + 1) * in->stride + x + 1;
      in->sum[i] = in->sum[i - in->stride] + row;
      in->sq[i] = in->sq[i - in->stride] + row_sq;
    }
  }
  return true;
}

static uint64_t
window (const uint64_t * t, int stride, int x0, int y0)
{
  const size_t a = (size_t) y0 * stride + x0, b = a + SIDE * (size_t) stride;
  return t[b + SIDE] - t[b] - t[a + SIDE] + t[a];
}

/* 1 - the normalized correlation of the patch p (zero mean, unit standard
 * deviation) with the right view's window whose top left is (x0, y0);
 * above 1 for a flat window. */
static double
match_cost (const double *p, const uint8_t * right, int width,
    const Integral * in, int x0, int y0)
{
  const double s = (double) window (in->sum, in->stride, x0, y0);
  const double sq = (double) window (in->sq, in->stride, x0, y0);
  const double var = sq / AREA - (s / AREA) * (s / AREA);
  if (var < 1.0)
    return 2.0;
  double dot = 0.0;
  for (int j = 0; j < SIDE; j++) {
    const uint8_t *r = right + (size_t) (y0 + j) * width + x0;
    for (int i = 0; i < SIDE; i++)
      dot += p[j * SIDE + i] * r[i];
  }
  return 1.0 - dot / (AREA * sqrt (var));
}

/* The patch of the left view centred on (x, y), zero mean and unit
 * standard deviation; false where it has too little texture. */
static bool
left_patch (const uint8_t * left, int width, int x, int y, double *p)
{
  double s = 0.0, sq = 0.0;
  for (int j = 0; j < SIDE; j++)
    for (int i = 0; i < SIDE; i++) {
      const double v = left[(size_t) (y - RADIUS + j) * width + x - RADIUS +
          i];
      p[j * SIDE + i] = v;
      s += v;
      sq += v * v;
    }
  const double mean = s / AREA, var = sq / AREA - mean * mean;
  if (var < MIN_TEXTURE * MIN_TEXTURE)
    return false;
  const double scale = 1.0 / sqrt (var);
  for (int i = 0; i < AREA; i++)
    p[i] = (p[i] - mean) * scale;
  return true;
}

/* The vote of the patch p at (x, y): the row offset of its best match, or
 * false when the match is poor, ambiguous or at the edge of the rows
 * searched.  cost holds (2 SEARCH + 1) x columns. */
static bool
patch_vote (const double *p, const uint8_t * right, int width,
    const Integral * in, int x, int y, int dmin, int columns, double *cost,
    double *vote)
{
  const int rows = 2 * SD_ROW_ALIGN_SEARCH + 1;
  int best = 0;
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < columns; c++) {
      const int i = r * columns + c;
      cost[i] = match_cost (p, right, width, in, x - dmin - c - RADIUS,
          y + r - SD_ROW_ALIGN_SEARCH - RADIUS);
      if (cost[i] < cost[best])
        best = i;
    }
  const int br = best / columns, bc = best % columns;
  if (cost[best] > WORST_COST || br == 0 || br == rows - 1)
    return false;
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < columns; c++)
      if (abs (c - bc) >= 2 && cost[r * columns + c] < cost[best] +
          UNIQUE_MARGIN)
        return false;
  const double above = cost[best - columns], below = cost[best + columns];
  const double curve = above - 2.0 * cost[best] + below;
  double frac = curve > 0.0 ? 0.5 * (above - below) / curve : 0.0;
  frac = frac < -0.5 ? -0.5 : frac > 0.5 ? 0.5 : frac;
  *vote = br - SD_ROW_ALIGN_SEARCH + frac;
  return true;
}

static int
compare_double (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* The median of n sorted values. */
static double
median (const double *v, int n)
{
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

SdRowOffset
sd_row_offset_measure (const uint8_t * left, const uint8_t * right,
    int width, int height, int min_disparity, int num_disparities)
{
  SdRowOffset out = { 0.0, 0, false };
  const int margin = RADIUS + SD_ROW_ALIGN_SEARCH;
  int step = (int) ceil (sqrt ((double) width * height / PATCHES));
  step = step < MIN_STEP ? MIN_STEP : step;
  const int nx = width / step + 1, ny = height / step + 1;
  Integral in = { 0 };
  double *votes = malloc (sizeof (double) * nx * ny);
  double *cost = malloc (sizeof (double) * (2 * SD_ROW_ALIGN_SEARCH + 1) *
      num_disparities);
  if (!votes || !cost || !integral_new (&in, right, width, height))
    goto done;
  double p[AREA];
  int n = 0;
  for (int y = margin; y + margin < height; y += step)
    for (int x = RADIUS + min_disparity; x + RADIUS < width; x += step) {
      /* the columns whose window lies inside the right view */
      int columns = x - RADIUS - min_disparity + 1;
      columns = columns < num_disparities ? columns : num_disparities;
      if (columns >= 3 && left_patch (left, width, x, y, p)
          && patch_vote (p, right, width, &in, x, y, min_disparity, columns,
              cost, &votes[n]))
        n++;
    }
  if (n < SD_ROW_ALIGN_MIN_PATCHES)
    goto done;
  qsort (votes, n, sizeof (double), compare_double);
  const double offset = median (votes, n);
  for (int i = 0; i < n; i++)
    votes[i] = fabs (votes[i] - offset);
  qsort (votes, n, sizeof (double), compare_double);
  out.patches = n;
  out.offset = offset;
  out.measured = median (votes, n) <= MAX_SPREAD;
done:
  free (in.sum);
  free (in.sq);
  free (votes);
  free (cost);
  return out;
}
