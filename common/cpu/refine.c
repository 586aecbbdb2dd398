/* From aggregated costs to the output: winner takes all with uniqueness,
 * subpixel refinement, left-right check, median, hole filling. */
#include "sd-cpu.h"

#include "../sd-confidence.h"
#include "../sd-edge-fill.h"
#include "../sd-guided-median.h"
#include "../sd-output.h"
#include "../sd-speckle.h"

#include <stdlib.h>
#include <string.h>

/* Rounds num / den to the nearest integer, halves away from zero (den > 0).
 * Integer-only so that every backend gets the same bits. */
static int
div_round (int num, int den)
{
  return num >= 0 ? (num + den / 2) / den : -((-num + den / 2) / den);
}

static int
argmin (const uint16_t * s, int n, int stride)
{
  int best = 0;
  for (int k = 1; k < n; k++)
    if (s[k * stride] < s[best * stride])
      best = k;
  return best;
}

void
sd_cpu_wta (const SdParams * p, const uint16_t * sum, int16_t * disp,
    uint8_t * margin, int width, int height)
{
  const int D = p->num_disparities;
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      const size_t pix = (size_t) y * width + x;
      const uint16_t *s = sum + pix * D;
      uint8_t *m = margin ? margin + pix : NULL;
      /* no disparity of the range points inside the right image */
      if (x < p->min_disparity) {
        disp[pix] = SD_DISP_INVALID;
        if (m)
          *m = 0;
        continue;
      }
      disp[pix] = sd_cpu_wta_value (p, s, argmin (s, D, 1), m);
    }
  }
}

int16_t
sd_cpu_wta_value (const SdParams * p, const uint16_t * s, int best,
    uint8_t * margin)
{
  const int D = p->num_disparities;
  /* the smallest sum more than one index away: the uniqueness test and the
   * margin both weigh the best against it */
  int second = -1;
  if (p->uniqueness > 0 || margin)
    for (int k = 0; k < D; k++)
      if (abs (k - best) > 1 && (second < 0 || s[k] < second))
        second = s[k];
  if (margin)
    *margin = sd_confidence_sgm_margin (s[best], second, second >= 0);
  /* at 0 % no cost can beat the smallest: nothing to look at */
  if (p->uniqueness > 0 && second >= 0
      && second * (100 - p->uniqueness) < (int) s[best] * 100)
    return SD_DISP_INVALID;
  int value = (p->min_disparity + best) * SD_SUBPIXEL_SCALE;
  if (p->subpixel && best > 0 && best < D - 1) {
    const int left = s[best - 1], right = s[best + 1];
    int denom = left + right - 2 * s[best];
    if (denom < 1)
      denom = 1;
    value += div_round ((left - right) * SD_SUBPIXEL_SCALE, 2 * denom);
  }
  return (int16_t) value;
}

int
sd_right_candidates (const SdParams * p, int width, int xr)
{
  const int n = width - xr - p->min_disparity;
  return n < 0 ? 0 : n > p->num_disparities ? p->num_disparities : n;
}

void
sd_cpu_right_disparity (const SdParams * p, const uint16_t * sum,
    int16_t * right_disp, int width, int height)
{
  const int D = p->num_disparities;
  for (int y = 0; y < height; y++) {
    for (int xr = 0; xr < width; xr++) {
      const int n = sd_right_candidates (p, width, xr);
      if (n == 0) {
        right_disp[(size_t) y * width + xr] = SD_DISP_INVALID;
        continue;
      }
      const uint16_t *s = sum + ((size_t) y * width + xr +
          p->min_disparity) * D;
      right_disp[(size_t) y * width + xr] =
          (int16_t) (p->min_disparity + argmin (s, n, D + 1));
    }
  }
}

void
sd_cpu_lr_check (const SdParams * p, int16_t * disp,
    const int16_t * right_disp, int width, int height)
{
  const int tolerance = sd_params_lr_check (p);
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      int16_t *v = disp + (size_t) y * width + x;
      if (*v == SD_DISP_INVALID)
        continue;
      const int d = (*v + SD_SUBPIXEL_SCALE / 2) / SD_SUBPIXEL_SCALE;
      const int xr = x - d;
      if (xr < 0 || right_disp[(size_t) y * width + xr] == SD_DISP_INVALID
          || abs (right_disp[(size_t) y * width + xr] - d) > tolerance)
        *v = SD_DISP_INVALID;
    }
  }
}

/* The left-right agreement |d - dR| of a checked disparity v. */
static int
lr_diff (const int16_t * right_row, int16_t v, int x)
{
  const int d = (v + SD_SUBPIXEL_SCALE / 2) / SD_SUBPIXEL_SCALE;
  return abs (right_row[x - d] - d);
}

void
sd_cpu_confidence (const SdParams * p, const int16_t * checked,
    const int16_t * final, const int16_t * right_disp, const uint8_t * margin,
    uint8_t * conf, size_t conf_stride, int width, int height)
{
  const int lr_check = sd_params_lr_check (p);
  for (int y = 0; y < height; y++) {
    const size_t row = (size_t) y * width;
    uint8_t *c = conf + (size_t) y * conf_stride;
    for (int x = 0; x < width; x++) {
      /* no match: invalid, or 0, which fill-holes treats as a hole */
      if (final[row + x] <= 0) {
        c[x] = 0;
        continue;
      }
      const int diff = lr_check == SD_LR_CHECK_OFF ? 0 :
          lr_diff (right_disp + row, checked[row + x], x);
      c[x] = sd_confidence_value (margin[row + x], lr_check, diff);
    }
  }
}

/* sd_cpu_median_disparity at pixel (x, y) */
static int16_t
sd_cpu_median_at (const int16_t * src, int width, int height, int x, int y)
{
  if (src[(size_t) y * width + x] == SD_DISP_INVALID)
    return SD_DISP_INVALID;
  /* the valid neighbours, insertion-sorted as they come */
  int16_t values[9];
  int n = 0;
  for (int yy = y - 1; yy <= y + 1; yy++) {
    for (int xx = x - 1; xx <= x + 1; xx++) {
      if (yy < 0 || yy >= height || xx < 0 || xx >= width)
        continue;
      const int16_t v = src[(size_t) yy * width + xx];
      if (v == SD_DISP_INVALID)
        continue;
      int i = n++;
      for (; i > 0 && values[i - 1] > v; i--)
        values[i] = values[i - 1];
      values[i] = v;
    }
  }
  return values[(n - 1) / 2];
}

void
sd_cpu_median_disparity (const int16_t * src, int16_t * dst, int width,
    int height)
{
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      dst[(size_t) y * width + x] = sd_cpu_median_at (src, width, height, x,
          y);
}

/* sd_cpu_guided_median at pixel (x, y) */
static int16_t
sd_cpu_guided_median_at (const int16_t * src, const uint8_t * guide,
    int width, int height, int x, int y)
{
  const size_t centre = (size_t) y * width + x;
  if (src[centre] <= 0)
    return src[centre];
  /* the valid samples and their weights, insertion-sorted by value */
  int16_t values[SD_GUIDED_MEDIAN_SAMPLES];
  int weights[SD_GUIDED_MEDIAN_SAMPLES];
  int n = 0, total = 0;
  const int half = SD_GUIDED_MEDIAN_SIDE / 2;
  for (int j = -half; j <= half; j++) {
    for (int i = -half; i <= half; i++) {
      const int xx = x + i * SD_GUIDED_MEDIAN_STEP;
      const int yy = y + j * SD_GUIDED_MEDIAN_STEP;
      if (xx < 0 || xx >= width || yy < 0 || yy >= height)
        continue;
      const size_t at = (size_t) yy * width + xx;
      if (src[at] <= 0)
        continue;
      const int w = sd_guided_median_weight (guide[centre], guide[at]);
      int k = n++;
      for (; k > 0 && values[k - 1] > src[at]; k--) {
        values[k] = values[k - 1];
        weights[k] = weights[k - 1];
      }
      values[k] = src[at];
      weights[k] = w;
      total += w;
    }
  }
  /* the centre weighs the most, so total > 0 and the walk stops */
  int below = 0;
  for (int k = 0;; k++) {
    below += weights[k];
    if (2 * below >= total)
      return values[k];
  }
}

void
sd_cpu_guided_median (const int16_t * src, const uint8_t * guide,
    int16_t * dst, int width, int height)
{
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      dst[(size_t) y * width + x] = sd_cpu_guided_median_at (src, guide,
          width, height, x, y);
}

void
sd_cpu_remove_speckles (int16_t * disp, uint8_t * conf, size_t conf_stride,
    int width, int height, uint8_t * seen, int32_t * queue)
{
  const int min_size = sd_speckle_min_size (width, height);
  const size_t n = (size_t) width * height;
  memset (seen, 0, n);
  /* each segment is flooded breadth first: queue[0 .. len) ends up holding
   * its pixels */
  for (size_t i = 0; i < n; i++) {
    if (seen[i] || disp[i] <= 0)
      continue;
    int len = 0;
    queue[len++] = (int32_t) i;
    seen[i] = 1;
    for (int head = 0; head < len; head++) {
      const int32_t j = queue[head];
      const int x = j % width, y = j / width;
      const int32_t next[4] = {
        x > 0 ? j - 1 : -1, x + 1 < width ? j + 1 : -1,
        y > 0 ? j - width : -1, y + 1 < height ? j + width : -1
      };
      for (int k = 0; k < 4; k++)
        if (next[k] >= 0 && !seen[next[k]]
            && sd_speckle_joined (disp[j], disp[next[k]])) {
          seen[next[k]] = 1;
          queue[len++] = next[k];
        }
    }
    if (len >= min_size)
      continue;
    for (int q = 0; q < len; q++) {
      disp[queue[q]] = SD_DISP_INVALID;
      if (conf)
        conf[(size_t) (queue[q] / width) * conf_stride + queue[q] % width] =
            0;
    }
  }
}

void
sd_cpu_fill_holes (int16_t * disp, int width, int height, int lo, int hi)
{
  /* a hole is an invalid pixel or a disparity of 0 (sd-cpu.h says why) */
  for (int y = 0; y < height; y++) {
    int16_t *row = disp + (size_t) y * width;
    sd_fill_row_start (row, width, lo, hi);
    int x = 0;
    while (x < width) {
      if (row[x] > 0) {
        x++;
        continue;
      }
      const int start = x;
      while (x < width && row[x] <= 0)
        x++;
      const int16_t before = start > 0 ? row[start - 1] : SD_DISP_INVALID;
      const int16_t after = x < width ? row[x] : SD_DISP_INVALID;
      int16_t fill = before;
      if (fill == SD_DISP_INVALID || (after != SD_DISP_INVALID
              && after < fill))
        fill = after;
      for (int i = start; i < x; i++)
        row[i] = fill;
    }
  }
}

void
sd_cpu_to_output (const SdParams * p, const int16_t * disp, uint16_t * out,
    size_t out_stride, int width, int height)
{
  const uint64_t depth_scale = sd_output_depth_scale (p);
  for (int y = 0; y < height; y++) {
    uint16_t *o = (uint16_t *) ((uint8_t *) out + (size_t) y * out_stride);
    for (int x = 0; x < width; x++)
      o[x] = sd_output_value (disp[(size_t) y * width + x], depth_scale);
  }
}
