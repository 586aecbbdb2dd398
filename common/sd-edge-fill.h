/* The holes at the start of a row (fill-holes): where the left image's
 * surface runs off its left edge, its true matches fall outside the right
 * image and the left-right check rejects them, so each row starts with a
 * run of holes.  A slanted surface there (a floor or a wall seen at an
 * angle) is better continued than held at the run's one bound: the run
 * takes the least-squares line of the row's next SD_EDGE_FILL_FIT valid
 * pixels when every one of them lies within SD_EDGE_FILL_TOLERANCE of it,
 * and otherwise that bound, as any run with one bound.  The values are
 * clamped to the output's disparity range.
 *
 * Integer arithmetic throughout (positions counted from the first valid
 * pixel, values in 1/16 px), so the CPU and CUDA backends give the same
 * bits.  Chosen on every shared set at once: docs/algorithms.md, "The left
 * edge continues its surface". */
#ifndef SD_EDGE_FILL_H
#define SD_EDGE_FILL_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __CUDACC__
#define SD_EDGE_FILL_FN __host__ __device__ static inline
#else
#define SD_EDGE_FILL_FN static inline
#endif

#define SD_EDGE_FILL_FIT 48
#define SD_EDGE_FILL_TOLERANCE 16       /* 1 px in 1/16 px */

/* The least-squares line through points (t, v): its sums. */
typedef struct
{
  int64_t n, st, sv, stt, stv;
} SdEdgeFit;

SD_EDGE_FILL_FN void
sd_edge_fit_add (SdEdgeFit * f, int64_t t, int64_t v)
{
  f->n++;
  f->st += t;
  f->sv += v;
  f->stt += t * t;
  f->stv += t * v;
}

/* The line's value at t is sd_edge_fit_scaled (f, t) / sd_edge_fit_scale
 * (f): (sv den + num (n t - st)) / (n den), den = n stt - st^2 and num =
 * n stv - st sv (the slope's numerator).  A fit of SD_EDGE_FILL_FIT
 * distinct positions has den > 0. */
SD_EDGE_FILL_FN int64_t
sd_edge_fit_scale (const SdEdgeFit * f)
{
  return f->n * (f->n * f->stt - f->st * f->st);
}

SD_EDGE_FILL_FN int64_t
sd_edge_fit_scaled (const SdEdgeFit * f, int64_t t)
{
  const int64_t den = f->n * f->stt - f->st * f->st;
  const int64_t num = f->n * f->stv - f->st * f->sv;
  return f->sv * den + num * (f->n * t - f->st);
}

/* Whether v lies within SD_EDGE_FILL_TOLERANCE of the line at t. */
SD_EDGE_FILL_FN bool
sd_edge_fit_near (const SdEdgeFit * f, int64_t t, int64_t v)
{
  const int64_t scale = sd_edge_fit_scale (f);
  const int64_t off = v * scale - sd_edge_fit_scaled (f, t);
  return off <= SD_EDGE_FILL_TOLERANCE * scale
      && -off <= SD_EDGE_FILL_TOLERANCE * scale;
}

/* The line's value at t, rounded, within [lo, hi]. */
SD_EDGE_FILL_FN int
sd_edge_fit_value (const SdEdgeFit * f, int64_t t, int lo, int hi)
{
  const int64_t a = sd_edge_fit_scaled (f, t), b = sd_edge_fit_scale (f);
  const int64_t v = a >= 0 ? (a + b / 2) / b : -((-a + b / 2) / b);
  return v < lo ? lo : v > hi ? hi : (int) v;
}

/* Fills row[0 .. first valid pixel) as above, values within [lo, hi]; a
 * hole is a value below 1 (invalid, or 0: sd-cpu.h says why).  Leaves the
 * row as it is when it has no leading holes or fewer than
 * SD_EDGE_FILL_FIT valid pixels: the run filling after it then fills the
 * run from its bound.  (The CUDA backend's warp a row does the same in
 * cuda/sd-cuda-refine.cu.) */
SD_EDGE_FILL_FN void
sd_fill_row_start (int16_t * row, int width, int lo, int hi)
{
  int first = 0;
  while (first < width && row[first] < 1)
    first++;
  if (first == 0 || first == width)
    return;
  SdEdgeFit fit = { 0, 0, 0, 0, 0 };
  int x = first;
  for (; x < width && fit.n < SD_EDGE_FILL_FIT; x++)
    if (row[x] >= 1)
      sd_edge_fit_add (&fit, x - first, row[x]);
  if (fit.n < SD_EDGE_FILL_FIT)
    return;
  for (int i = first; i < x; i++)
    if (row[i] >= 1 && !sd_edge_fit_near (&fit, i - first, row[i]))
      return;
  for (int i = 0; i < first; i++)
    row[i] = (int16_t) sd_edge_fit_value (&fit, i - first, lo, hi);
}

#endif
