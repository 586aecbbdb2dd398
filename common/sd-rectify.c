/* Undistort-and-rectify maps (the model of OpenCV's initUndistortRectifyMap)
 * and the reference remap. */
#include "sd-rectify.h"
#include "sd-host-cpus.h"
#include "sd-message.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inverts a 3x3 matrix; false when it is singular. */
static bool
invert3 (const double m[9], double inv[9])
{
  const double c0 = m[4] * m[8] - m[5] * m[7];
  const double c1 = m[5] * m[6] - m[3] * m[8];
  const double c2 = m[3] * m[7] - m[4] * m[6];
  const double det = m[0] * c0 + m[1] * c1 + m[2] * c2;
  if (!(fabs (det) > 1e-300))
    return false;
  inv[0] = c0 / det;
  inv[1] = (m[2] * m[7] - m[1] * m[8]) / det;
  inv[2] = (m[1] * m[5] - m[2] * m[4]) / det;
  inv[3] = c1 / det;
  inv[4] = (m[0] * m[8] - m[2] * m[6]) / det;
  inv[5] = (m[2] * m[3] - m[0] * m[5]) / det;
  inv[6] = c2 / det;
  inv[7] = (m[1] * m[6] - m[0] * m[7]) / det;
  inv[8] = (m[0] * m[4] - m[1] * m[3]) / det;
  return true;
}

/* A camera scaled from its calibration's resolution by s about pixel
 * centres: u' = (u + 0.5) s - 0.5 for K and for the first two rows of P. */
static void
scale_camera (SdCameraCalib * c, double s)
{
  const double shift = 0.5 * s - 0.5;
  for (int i = 0; i < 6; i++)
    c->K[i] *= s;
  c->K[2] += shift * c->K[8];
  c->K[5] += shift * c->K[8];
  for (int i = 0; i < 8; i++)
    c->P[i] *= s;
  for (int i = 0; i < 4; i++) {
    c->P[i] += shift * c->P[8 + i];
    c->P[4 + i] += shift * c->P[8 + i];
  }
}

static int32_t
to_fixed (double v, int size)
{
  const double hi = (double) (size - 1) * SD_RECTIFY_ONE;
  const double f = v * SD_RECTIFY_ONE;
  /* NaN (a ray behind the camera) and the outside clamp to the edge */
  if (!(f > 0))
    return 0;
  return f >= hi ? (int32_t) hi : (int32_t) lround (f);
}

/* Where each rectified pixel of camera c comes from in its raw image. */
static bool
build_map (const SdCameraCalib * c, int width, int height, int32_t * map)
{
  /* (u, v, 1) -> the ray in the camera's frame: (P33 R)^-1 */
  double pr[9], ipr[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      pr[3 * i + j] = c->P[4 * i] * c->R[j] + c->P[4 * i + 1] * c->R[3 + j] +
          c->P[4 * i + 2] * c->R[6 + j];
  if (!invert3 (pr, ipr))
    return false;
  const double *k = c->D;
  for (int v = 0; v < height; v++) {
    for (int u = 0; u < width; u++) {
      const double X = ipr[0] * u + ipr[1] * v + ipr[2];
      const double Y = ipr[3] * u + ipr[4] * v + ipr[5];
      const double W = ipr[6] * u + ipr[7] * v + ipr[8];
      double su = NAN, sv = NAN;
      if (W > 0) {
        const double x = X / W, y = Y / W;
        const double r2 = x * x + y * y, r4 = r2 * r2, r6 = r4 * r2;
        const double radial = (1 + k[0] * r2 + k[1] * r4 + k[4] * r6) /
            (1 + k[5] * r2 + k[6] * r4 + k[7] * r6);
        const double xd = x * radial + 2 * k[2] * x * y + k[3] * (r2 +
            2 * x * x);
        const double yd = y * radial + k[2] * (r2 + 2 * y * y) +
            2 * k[3] * x * y;
        su = c->K[0] * xd + c->K[1] * yd + c->K[2];
        sv = c->K[4] * yd + c->K[5];
      }
      int32_t *m = map + 2 * ((size_t) v * width + u);
      m[0] = to_fixed (su, width);
      m[1] = to_fixed (sv, height);
    }
  }
  return true;
}

/* Maps of width x height, allocated and not yet written, or NULL when out
 * of memory. */
static SdRectification *
maps_new (int width, int height)
{
  SdRectification *r = calloc (1, sizeof (*r));
  const size_t n = (size_t) width * height * 2;
  if (r) {
    r->map[0] = malloc (n * sizeof (int32_t));
    r->map[1] = malloc (n * sizeof (int32_t));
  }
  if (!r || !r->map[0] || !r->map[1]) {
    sd_rectification_free (r);
    return NULL;
  }
  r->width = width;
  r->height = height;
  return r;
}

/* The ids of sd_rectification_new and sd_rectification_realign_right */
static uint64_t
new_id (void)
{
  static uint64_t last;
  return __atomic_add_fetch (&last, 1, __ATOMIC_RELAXED);
}

SdRectification *
sd_rectification_new (const SdStereoCalib * calib, int width, int height,
    char *msg, size_t msg_size)
{
  SdStereoCalib c = *calib;
  double s = 1.0;
  if (c.width > 0 && c.height > 0 && (c.width != width || c.height != height)) {
    if ((int64_t) width * c.height != (int64_t) height * c.width) {
      sd_message (msg, msg_size, "the calibration is for %dx%d images but the "
          "stream is %dx%d, another aspect ratio; calibrate at this size",
          c.width, c.height, width, height);
      return NULL;
    }
    s = (double) width / c.width;
    scale_camera (&c.cam[0], s);
    scale_camera (&c.cam[1], s);
  }
  SdRectification *r = maps_new (width, height);
  if (!r) {
    sd_message (msg, msg_size, "out of memory for %dx%d rectification maps",
        width, height);
    return NULL;
  }
  for (int j = 0; j < 2; j++) {
    if (!build_map (&c.cam[j], width, height, r->map[j])) {
      sd_rectification_free (r);
      sd_message (msg, msg_size,
          "the calibration's %s rectification (P%d R%d) is singular",
          j ? "right" : "left", j + 1, j + 1);
      return NULL;
    }
  }
  const double f = calib->cam[1].P[0];
  r->focal_length = c.cam[1].P[0];
  r->baseline = f > 0 ? sd_stereo_calib_focal_baseline (calib) / f : 0;
  r->id = new_id ();
  return r;
}

SdRectification *
sd_rectification_copy (const SdRectification * rect)
{
  SdRectification *r = calloc (1, sizeof (*r));
  const size_t bytes = (size_t) rect->width * rect->height * 2 *
      sizeof (int32_t);
  if (!r)
    return NULL;
  *r = *rect;
  r->map[0] = malloc (bytes);
  r->map[1] = malloc (bytes);
  if (!r->map[0] || !r->map[1]) {
    sd_rectification_free (r);
    return NULL;
  }
  memcpy (r->map[0], rect->map[0], bytes);
  memcpy (r->map[1], rect->map[1], bytes);
  return r;
}

/* Where map (or the identity, when NULL) reads the point (x, y):
 * bilinear between the pixels around it, the edges repeated. */
static void
sample_map (const int32_t * map, int width, int height, double x, double y,
    int32_t * out)
{
  x = x < 0.0 ? 0.0 : x > width - 1 ? width - 1 : x;
  y = y < 0.0 ? 0.0 : y > height - 1 ? height - 1 : y;
  if (!map) {
    out[0] = (int32_t) lround (x * SD_RECTIFY_ONE);
    out[1] = (int32_t) lround (y * SD_RECTIFY_ONE);
    return;
  }
  const int x0 = (int) x, x1 = x0 + 1 < width ? x0 + 1 : x0;
  const int y0 = (int) y, y1 = y0 + 1 < height ? y0 + 1 : y0;
  const double s = x - x0, t = y - y0;
  for (int c = 0; c < 2; c++) {
    const double top = (1.0 - s) * map[2 * ((size_t) y0 * width + x0) + c] +
        s * map[2 * ((size_t) y0 * width + x1) + c];
    const double bottom = (1.0 - s) * map[2 * ((size_t) y1 * width + x0) +
        c] + s * map[2 * ((size_t) y1 * width + x1) + c];
    out[c] = (int32_t) lround ((1.0 - t) * top + t * bottom);
  }
}

SdRectification *
sd_rectification_realign_right (const SdRectification * rect, int width,
    int height, double offset, double slope, double scale)
{
  SdRectification *r = maps_new (width, height);
  if (!r)
    return NULL;
  const double cx = (width - 1) / 2.0, cy = (height - 1) / 2.0;
  const double turn = atan (slope);
  const double c = (1.0 + scale) * cos (turn), s = (1.0 + scale) * sin (turn);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      const size_t i = 2 * ((size_t) y * width + x);
      sample_map (rect ? rect->map[0] : NULL, width, height, x, y,
          r->map[0] + i);
      sample_map (rect ? rect->map[1] : NULL, width, height,
          cx + c * (x - cx) - s * (y - cy),
          cy + s * (x - cx) + c * (y - cy) + offset, r->map[1] + i);
    }
  r->focal_length = rect ? rect->focal_length : 0.0;
  r->baseline = rect ? rect->baseline : 0.0;
  r->id = new_id ();
  return r;
}

void
sd_rectification_free (SdRectification * rect)
{
  if (!rect)
    return;
  free (rect->map[0]);
  free (rect->map[1]);
  free (rect);
}

void
sd_rectify_component_rows (const int32_t * map, const uint8_t * src,
    int src_stride, uint8_t * dst, int dst_stride, int pixel_stride,
    int width, int height, int y0, int y1)
{
  for (int y = y0; y < y1; y++) {
    const int32_t *m = map + 2 * (size_t) y * width;
    uint8_t *d = dst + (size_t) y * dst_stride;
    for (int x = 0; x < width; x++)
      d[(size_t) x * pixel_stride] = sd_rectify_sample_strided (src,
          (size_t) src_stride, pixel_stride, width, height, m[2 * x],
          m[2 * x + 1]);
  }
}

void
sd_rectify_rows (const int32_t * map, const uint8_t * src, uint8_t * dst,
    int width, int height, int y0, int y1)
{
  sd_rectify_component_rows (map, src, width, dst, width, 1, width, height,
      y0, y1);
}

void
sd_rectify_component (const int32_t * map, const uint8_t * src,
    int src_stride, uint8_t * dst, int dst_stride, int pixel_stride,
    int width, int height)
{
#pragma omp parallel for schedule(static) num_threads (sd_host_threads ())
  for (int y = 0; y < height; y++)
    sd_rectify_component_rows (map, src, src_stride, dst, dst_stride,
        pixel_stride, width, height, y, y + 1);
}

void
sd_rectify_component16 (const int32_t * map, const uint16_t * src,
    int src_stride, uint16_t * dst, int dst_stride, int pixel_stride,
    int depth, int shift, int width, int height)
{
#pragma omp parallel for schedule(static) num_threads (sd_host_threads ())
  for (int y = 0; y < height; y++)
    sd_rectify_component16_rows (map, src, src_stride, dst, dst_stride,
        pixel_stride, depth, shift, width, height, y, y + 1);
}

void
sd_rectify_component16_rows (const int32_t * map, const uint16_t * src,
    int src_stride, uint16_t * dst, int dst_stride, int pixel_stride,
    int depth, int shift, int width, int height, int y0, int y1)
{
  for (int y = y0; y < y1; y++) {
    const int32_t *m = map + 2 * (size_t) y * width;
    uint16_t *d = dst + (size_t) y * (dst_stride / 2);
    for (int x = 0; x < width; x++)
      d[(size_t) x * pixel_stride] = sd_rectify_sample16 (src,
          (size_t) src_stride / 2, pixel_stride, width, height, depth, shift,
          m[2 * x], m[2 * x + 1]);
  }
}

int32_t *
sd_rectify_map_subsampled (const int32_t * map, int width, int height,
    int sub_x, int sub_y, int *cwidth, int *cheight)
{
  const int sx = 1 << sub_x, sy = 1 << sub_y;
  const int cw = (width + sx - 1) / sx, ch = (height + sy - 1) / sy;
  int32_t *cmap = malloc (2 * (size_t) cw * ch * sizeof (int32_t));
  if (!cmap)
    return NULL;
  for (int j = 0; j < ch; j++)
    for (int i = 0; i < cw; i++) {
      int32_t *out = cmap + 2 * ((size_t) j * cw + i);
      /* the sample's centre in the view's pixels, where its map reads */
      sample_map (map, width, height, (i + 0.5) * sx - 0.5,
          (j + 0.5) * sy - 0.5, out);
      /* that raw position in the component's own pixels: a view pixel
       * p lies at (p - (s - 1) / 2) / s */
      for (int c = 0; c < 2; c++) {
        const int s = c ? sy : sx, size = c ? ch : cw;
        const double v = (out[c] - 0.5 * (s - 1) * SD_RECTIFY_ONE) / s;
        const double hi = (double) (size - 1) * SD_RECTIFY_ONE;
        out[c] = v <= 0 ? 0 : v >= hi ? (int32_t) hi : (int32_t) lround (v);
      }
    }
  *cwidth = cw;
  *cheight = ch;
  return cmap;
}
