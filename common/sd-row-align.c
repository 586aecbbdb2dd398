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

/* The k-th smallest of the n values of v (from 0), which it reorders so
 * that none before k is larger (Hoare's selection: the slopes between
 * every two patches are tens of thousands, too many to sort). */
static double
select_kth (double *v, int n, int k)
{
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    const double pivot = v[lo + (hi - lo) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot)
        i++;
      while (v[j] > pivot)
        j--;
      if (i <= j) {
        const double t = v[i];
        v[i++] = v[j];
        v[j--] = t;
      }
    }
    /* v[lo .. j] <= pivot <= v[i .. hi], and between them the pivot */
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return v[k];
  }
  return v[k];
}

/* The median of the n values of v, which it reorders. */
static double
median (double *v, int n)
{
  const double upper = select_kth (v, n, n / 2);
  if (n % 2)
    return upper;
  double lower = v[0];
  for (int i = 1; i < n / 2; i++)
    lower = v[i] > lower ? v[i] : lower;
  return 0.5 * (lower + upper);
}

/* A patch's vote: where it is, and the offset of its row. */
typedef struct
{
  double x, y, dy;
} Vote;

/* A coordinate of a vote: x (along_y false) or y. */
static double
coordinate (const Vote * v, bool along_y)
{
  return along_y ? v->y : v->x;
}

/* The median offset of the votes about (cx, cy) along the slopes of fit,
 * and the median distance of the votes from that plane in spread. */
static double
fit_offset (const Vote * v, int n, double cx, double cy,
    const SdRowOffset * fit, double *scratch, double *spread)
{
  for (int i = 0; i < n; i++)
    scratch[i] = v[i].dy - fit->slope * (v[i].x - cx) - fit->scale *
        (v[i].y - cy);
  const double offset = median (scratch, n);
  for (int i = 0; i < n; i++)
    scratch[i] = fabs (scratch[i] - offset);
  *spread = median (scratch, n);
  return offset;
}

/* The median slope of the offset along x (along_y false) or y, between
 * every two votes of one row (one column) whose other coordinate lies in
 * [from, to) (Theil and Sen; the votes lie on a grid, so within a row the
 * offset's change down the columns does not enter, and the other way
 * round); 0 without a pair.  scratch holds n (n - 1) / 2 values. */
static double
median_slope (const Vote * v, int n, bool along_y, double from, double to,
    double *scratch)
{
  int pairs = 0;
  for (int i = 0; i < n; i++) {
    const double across = coordinate (&v[i], !along_y);
    if (across < from || across >= to)
      continue;
    for (int j = i + 1; j < n; j++)
      if (coordinate (&v[j], !along_y) == across)
        scratch[pairs++] = (v[j].dy - v[i].dy) / (coordinate (&v[j],
                along_y) - coordinate (&v[i], along_y));
  }
  return pairs ? median (scratch, pairs) : 0.0;
}

/* The spread (standard deviation) of the votes' x or y. */
static double
coordinate_sd (const Vote * v, int n, bool along_y)
{
  double s = 0.0, ss = 0.0;
  for (int i = 0; i < n; i++) {
    const double c = coordinate (&v[i], along_y);
    s += c;
    ss += c * c;
  }
  return sqrt (fmax (ss / n - (s / n) * (s / n), 0.0));
}

/* Whether the slope along x (along_y false) or y of fit's, found from
 * votes whose distances from the plane have the median spread, is a
 * rigid one: more than five of its standard errors (a robust one: the
 * spread against the coordinate's) from 0, so that the noise of the votes
 * does not move a view that needs it not, and found at least half by each
 * half of the votes across it (split at middle, the other coordinate): a
 * view turned or scaled against the other moves all its parts alike,
 * where a part of a scene can tilt its votes on its own (on a KITTI 2012
 * pair the upper half found a turn of -0.09 degrees and the lower +0.03). */
static bool
rigid (const Vote * v, int n, bool along_y, double slope, double spread,
    double middle, double *scratch)
{
  /* 1.4826: the median distance of normal noise to its deviation */
  const double error = 1.4826 * spread / (coordinate_sd (v, n, along_y) *
      sqrt (n));
  return fabs (slope) > 5.0 * error
      && median_slope (v, n, along_y, -INFINITY, middle, scratch) / slope >=
      0.5
      && median_slope (v, n, along_y, middle, INFINITY, scratch) / slope >=
      0.5;
}

/* The plane through n votes that the most agree with: the median slopes
 * along x (a turn) and y (a scale), then the median offset about (cx,
 * cy); the median distance of the votes from it in spread.  A slope not
 * rigid() is taken as 0.  scratch holds n (n - 1) / 2 values. */
static void
fit_plane (const Vote * v, int n, double cx, double cy, double *scratch,
    SdRowOffset * fit, double *spread)
{
  fit->slope = median_slope (v, n, false, -INFINITY, INFINITY, scratch);
  fit->scale = median_slope (v, n, true, -INFINITY, INFINITY, scratch);
  fit->offset = fit_offset (v, n, cx, cy, fit, scratch, spread);
  const double all = *spread;
  if (!rigid (v, n, false, fit->slope, all, cy, scratch))
    fit->slope = 0.0;
  if (!rigid (v, n, true, fit->scale, all, cx, scratch))
    fit->scale = 0.0;
  fit->offset = fit_offset (v, n, cx, cy, fit, scratch, spread);
}

double
sd_row_offset_largest (const SdRowOffset * rows, int width, int height)
{
  return fabs (rows->offset) + fabs (rows->slope) * (width - 1) / 2.0 +
      fabs (rows->scale) * (height - 1) / 2.0;
}

double
sd_row_offset_degrees (const SdRowOffset * rows)
{
  return atan (rows->slope) * (180.0 / 3.14159265358979323846);
}

SdRowOffset
sd_row_offset_measure (const uint8_t * left, const uint8_t * right,
    int width, int height, int min_disparity, int num_disparities)
{
  SdRowOffset out = { 0.0, 0.0, 0.0, 0, false };
  const int margin = RADIUS + SD_ROW_ALIGN_SEARCH;
  int step = (int) ceil (sqrt ((double) width * height / PATCHES));
  step = step < MIN_STEP ? MIN_STEP : step;
  const size_t most = (size_t) (width / step + 1) * (height / step + 1);
  Integral in = { 0 };
  Vote *votes = malloc (sizeof (Vote) * most);
  double *scratch = malloc (sizeof (double) * (most * (most - 1) / 2 + 1));
  double *cost = malloc (sizeof (double) * (2 * SD_ROW_ALIGN_SEARCH + 1) *
      num_disparities);
  if (!votes || !scratch || !cost || !integral_new (&in, right, width,
          height))
    goto done;
  double p[AREA];
  int n = 0;
  for (int y = margin; y + margin < height; y += step)
    for (int x = RADIUS + min_disparity; x + RADIUS < width; x += step) {
      /* the columns whose window lies inside the right view */
      int columns = x - RADIUS - min_disparity + 1;
      columns = columns < num_disparities ? columns : num_disparities;
      votes[n].x = x;
      votes[n].y = y;
      if (columns >= 3 && left_patch (left, width, x, y, p)
          && patch_vote (p, right, width, &in, x, y, min_disparity, columns,
              cost, &votes[n].dy))
        n++;
    }
  if (n < SD_ROW_ALIGN_MIN_PATCHES)
    goto done;
  double spread;
  fit_plane (votes, n, (width - 1) / 2.0, (height - 1) / 2.0, scratch, &out,
      &spread);
  out.patches = n;
  out.measured = spread <= MAX_SPREAD;
done:
  free (in.sum);
  free (in.sq);
  free (votes);
  free (scratch);
  free (cost);
  return out;
}
