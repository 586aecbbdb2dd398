/* Pieces of belief propagation shared by hbp and tiled BP: the data cost,
 * the O(D) message of a truncated linear smoothness term, and the read-out
 * of beliefs into disparities. */
#include "sd-cpu.h"
#include "../sd-confidence.h"
#include "../sd-cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int
sd_gaussian_kernel (float sigma, float kernel[SD_GAUSSIAN_MAX_RADIUS + 1])
{
  /* a normalised kernel of radius ceil(4 sigma) */
  const int r = (int) ceilf (4 * sigma);
  float total = 0;
  for (int i = 0; i <= r; i++) {
    kernel[i] = expf (-0.5f * (i / sigma) * (i / sigma));
    total += i ? 2 * kernel[i] : kernel[i];
  }
  for (int i = 0; i <= r; i++)
    kernel[i] /= total;
  return r;
}

void
sd_cpu_gaussian (const uint8_t * src, float *dst, float *tmp, int width,
    int height, float sigma)
{
  const size_t n = (size_t) width * height;
  if (sigma <= 0) {
    for (size_t i = 0; i < n; i++)
      dst[i] = src[i];
    return;
  }
  /* applied along x, then y */
  float kernel[SD_GAUSSIAN_MAX_RADIUS + 1];
  const int r = sd_gaussian_kernel (sigma, kernel);
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      const uint8_t *row = src + (size_t) y * width;
      float sum = kernel[0] * row[x];
      for (int i = 1; i <= r; i++)
        sum += kernel[i] * (row[sd_clamp_int (x - i, 0, width - 1)] +
            row[sd_clamp_int (x + i, 0, width - 1)]);
      tmp[(size_t) y * width + x] = sum;
    }
  }
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      float sum = kernel[0] * tmp[(size_t) y * width + x];
      for (int i = 1; i <= r; i++)
        sum += kernel[i] * (tmp[(size_t) sd_clamp_int (y - i, 0,
                    height - 1) * width + x] + tmp[(size_t) sd_clamp_int (y +
                    i, 0, height - 1) * width + x]);
      dst[(size_t) y * width + x] = sum;
    }
  }
}

/* Both backends build their data costs here (the cpu one a row a thread),
 * so on x86-64 it has a second build for processors with popcnt, picked
 * when the program loads: without it each census cost is a call to
 * libgcc's bit count (a tenth of an hbp frame with the fminf call below). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones ("popcnt", "default")))
#endif
void
sd_cpu_bp_data_cost (const SdParams * p, const float *left,
    const float *right, const uint64_t * census_left,
    const uint64_t * census_right, float *cost, int width, int height)
{
  const int D = p->num_disparities;
  const bool blend = sd_params_blends_ad (p);
  const int census_max = sd_cost_max (p);
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      const size_t i = (size_t) y * width + x;
      for (int k = 0; k < D; k++) {
        /* a match left of the right image reads its edge pixel, as windows
         * reaching outside do */
        const size_t r = (size_t) y * width + sd_clamp_int (x -
            p->min_disparity - k, 0, width - 1);
        const float ad = fabsf (left[i] - right[r]);
        const float c = !census_left ? ad : blend ?
            (float) sd_cost_census_ad (__builtin_popcountll (census_left[i] ^
                census_right[r]), (int) ad, census_max) :
            (float) __builtin_popcountll (census_left[i] ^ census_right[r]);
        /* fminf, inline: c is never NaN */
        cost[i * D + k] = p->data_weight * (c < p->data_trunc ? c :
            p->data_trunc);
      }
    }
  }
}

void
sd_bp_message (const float *data, const float *in_a, const float *in_b,
    const float *in_c, float *out, int D, float disc_trunc)
{
  /* h = data + the three incoming messages (absent ones are NULL) */
  float lowest = INFINITY;
  for (int k = 0; k < D; k++) {
    float h = data[k];
    if (in_a)
      h += in_a[k];
    if (in_b)
      h += in_b[k];
    if (in_c)
      h += in_c[k];
    out[k] = h;
    lowest = fminf (lowest, h);
  }
  /* min-convolution with |dp - dq| in two passes, then truncation */
  for (int k = 1; k < D; k++)
    out[k] = fminf (out[k], out[k - 1] + 1.0f);
  for (int k = D - 2; k >= 0; k--)
    out[k] = fminf (out[k], out[k + 1] + 1.0f);
  const float cap = lowest + disc_trunc;
  float sum = 0;
  for (int k = 0; k < D; k++) {
    out[k] = fminf (out[k], cap);
    sum += out[k];
  }
  /* normalise to zero mean, so that messages stay bounded */
  const float mean = sum / D;
  for (int k = 0; k < D; k++)
    out[k] -= mean;
}

void
sd_bp_incoming (const SdBpGrid * g, int x, int y, const float *in[4])
{
  const int D = g->num_disparities;
  in[SD_BP_FROM_BELOW] = y + 1 < g->height ? g->up + ((size_t) (y + 1) *
      g->width + x) * D : NULL;
  in[SD_BP_FROM_ABOVE] = y > 0 ? g->down + ((size_t) (y - 1) * g->width +
      x) * D : NULL;
  in[SD_BP_FROM_RIGHT] = x + 1 < g->width ? g->left + ((size_t) y *
      g->width + x + 1) * D : NULL;
  in[SD_BP_FROM_LEFT] = x > 0 ? g->right + ((size_t) y * g->width + x -
      1) * D : NULL;
}

void
sd_bp_update_pixel (const SdBpGrid * g, int x, int y, float disc_trunc)
{
  const int D = g->num_disparities;
  const size_t i = ((size_t) y * g->width + x) * D;
  const float *in[4];
  sd_bp_incoming (g, x, y, in);
  const float *data = g->data + i;
  /* each outgoing message leaves out what came from its receiver */
  if (y > 0)
    sd_bp_message (data, in[SD_BP_FROM_BELOW], in[SD_BP_FROM_RIGHT],
        in[SD_BP_FROM_LEFT], g->up + i, D, disc_trunc);
  if (y + 1 < g->height)
    sd_bp_message (data, in[SD_BP_FROM_ABOVE], in[SD_BP_FROM_RIGHT],
        in[SD_BP_FROM_LEFT], g->down + i, D, disc_trunc);
  if (x > 0)
    sd_bp_message (data, in[SD_BP_FROM_BELOW], in[SD_BP_FROM_ABOVE],
        in[SD_BP_FROM_RIGHT], g->left + i, D, disc_trunc);
  if (x + 1 < g->width)
    sd_bp_message (data, in[SD_BP_FROM_BELOW], in[SD_BP_FROM_ABOVE],
        in[SD_BP_FROM_LEFT], g->right + i, D, disc_trunc);
}

void
sd_bp_beliefs (const SdBpGrid * g, float *belief)
{
  const int D = g->num_disparities;
  for (int y = 0; y < g->height; y++) {
    for (int x = 0; x < g->width; x++) {
      const size_t i = ((size_t) y * g->width + x) * D;
      const float *in[4];
      sd_bp_incoming (g, x, y, in);
      for (int k = 0; k < D; k++) {
        float b = g->data[i + k];
        for (int m = 0; m < 4; m++)
          if (in[m])
            b += in[m][k];
        belief[i + k] = b;
      }
    }
  }
}

/* Disparity of one belief vector: the best k, refined with a parabola;
 * its margin into *margin when margin is not NULL. */
static int16_t
belief_to_disparity (const SdParams * p, const float *b, uint8_t * margin)
{
  const int D = p->num_disparities;
  int best = 0;
  for (int k = 1; k < D; k++)
    if (b[k] < b[best])
      best = k;
  if (margin) {
    int second = -1;
    for (int k = 0; k < D; k++)
      if (abs (k - best) > 1 && (second < 0 || b[k] < b[second]))
        second = k;
    *margin = sd_confidence_bp_margin (second < 0 ? 0.0f :
        b[second] - b[best], p->data_weight * p->data_trunc, second >= 0);
  }
  float d = (float) (p->min_disparity + best);
  if (p->subpixel && best > 0 && best < D - 1) {
    const float denom = b[best - 1] + b[best + 1] - 2 * b[best];
    if (denom > 0)
      d += (b[best - 1] - b[best + 1]) / (2 * denom);
  }
  return (int16_t) lrintf (d * SD_SUBPIXEL_SCALE);
}

void
sd_cpu_bp_disparity (const SdParams * p, const float *belief, int16_t * disp,
    uint8_t * margin, int width, int height)
{
  const int D = p->num_disparities;
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      const size_t i = (size_t) y * width + x;
      uint8_t *m = margin ? margin + i : NULL;
      if (x < p->min_disparity) {
        disp[i] = SD_DISP_INVALID;
        if (m)
          *m = 0;
      } else {
        disp[i] = belief_to_disparity (p, belief + i * D, m);
      }
    }
  }
}

void
sd_cpu_bp_right_disparity (const SdParams * p, const float *belief,
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
      const float *b = belief + ((size_t) y * width + xr +
          p->min_disparity) * D;
      int best = 0;
      for (int k = 1; k < n; k++)
        if (b[(size_t) k * (D + 1)] < b[(size_t) best * (D + 1)])
          best = k;
      right_disp[(size_t) y * width + xr] =
          (int16_t) (p->min_disparity + best);
    }
  }
}
