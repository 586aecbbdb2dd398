/* Rectification maps and the remap stage: the bilinear sample worked by
 * hand, an identity calibration that changes nothing, a calibration made
 * at twice the resolution, refusals, and the cpu backend giving the
 * reference's bits on a distorted rig; and the remap of one component of
 * a colour image (stereorectify): the pipeline's bits on a plane or an
 * interleaved byte, and subsampled chroma read where its luma is. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sd-engine.h"
#include "sd-rig.h"
#include "sd-synth.h"
#include "sd-test.h"

#define W 160
#define H 120

static void
test_sample (void)
{
  /* 0 255 / 100 50: the middle is the mean 101.25 -> 101; a whole-pixel
   * position is that pixel; the right and lower taps repeat the edge */
  const uint8_t img[4] = { 0, 255, 100, 50 };
  SD_CHECK_INT (sd_rectify_sample (img, 2, 2, 128, 128), 101);
  SD_CHECK_INT (sd_rectify_sample (img, 2, 2, 256, 0), 255);
  SD_CHECK_INT (sd_rectify_sample (img, 2, 2, 256, 128), 153);
  SD_CHECK_INT (sd_rectify_sample (img, 2, 2, 64, 0), 64);
}

/* A rig with no distortion, no rotation and the projection of the camera
 * matrix: every pixel maps onto itself. */
static void
identity_calib (SdStereoCalib * c, double scale)
{
  memset (c, 0, sizeof (*c));
  for (int j = 0; j < 2; j++) {
    const double f = 150 * scale, cx = (80.3 + 0.5) * scale - 0.5;
    const double cy = (59.6 + 0.5) * scale - 0.5;
    const double K[9] = { f, 0, cx, 0, f, cy, 0, 0, 1 };
    const double R[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    const double P[12] = { f, 0, cx, j ? -f * 100 : 0, 0, f, cy, 0, 0, 0,
      1, 0
    };
    memcpy (c->cam[j].K, K, sizeof (K));
    memcpy (c->cam[j].R, R, sizeof (R));
    memcpy (c->cam[j].P, P, sizeof (P));
    c->cam[j].n_dist = 5;
  }
  c->width = (int) (W * scale);
  c->height = (int) (H * scale);
  c->to_mm = 1;
}

static int
map_error (const SdRectification * r)
{
  int worst = 0;
  for (int j = 0; j < 2; j++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        const int32_t *m = r->map[j] + 2 * ((size_t) y * W + x);
        const int ex = abs (m[0] - x * SD_RECTIFY_ONE);
        const int ey = abs (m[1] - y * SD_RECTIFY_ONE);
        worst = ex > worst ? ex : ey > worst ? ey : worst;
      }
  return worst;
}

static void
run (const char *backend, const SdRectification * rect, const SdPlane * l,
    const SdPlane * r, uint16_t * out)
{
  SdParams p;
  SdError err = { 0 };
  sd_params_init (&p);
  p.num_disparities = 32;
  SdEngine *e = sd_engine_new (backend, 0, &p, &err);
  SD_CHECK (e != NULL, "%s", err.message);
  if (!e)
    return;
  SD_CHECK (sd_engine_set_rectification (e, rect, &err) == SD_OK, "%s",
      err.message);
  SdPlane o = { out, l->width, l->height, (size_t) l->width * 2,
    SD_PIXEL_GRAY16
  };
  SD_CHECK (sd_engine_process (e, l, r, &o, NULL, &err) == SD_OK, "%s",
      err.message);
  sd_engine_free (e);
}

static void
test_identity_and_scale (void)
{
  char msg[256];
  SdStereoCalib c;
  identity_calib (&c, 1.0);
  SdRectification *id = sd_rectification_new (&c, W, H, msg, sizeof (msg));
  SD_CHECK (id != NULL, "%s", msg);
  SD_CHECK_INT (map_error (id), 0);
  SD_CHECK (id->focal_length == 150 && id->baseline == 100, "f %g B %g",
      id->focal_length, id->baseline);

  /* made at 2x: scaled about pixel centres onto the same maps */
  identity_calib (&c, 2.0);
  SdRectification *half = sd_rectification_new (&c, W, H, msg, sizeof (msg));
  SD_CHECK (half != NULL, "%s", msg);
  SD_CHECK (map_error (half) <= 1, "%d / 256 px", map_error (half));
  SD_CHECK (half->focal_length == 150 && half->baseline == 100,
      "f %g B %g", half->focal_length, half->baseline);
  sd_rectification_free (half);

  /* another aspect ratio is refused with both sizes named */
  SD_CHECK (sd_rectification_new (&c, W, H / 2, msg, sizeof (msg)) == NULL,
      "another aspect ratio was scaled");
  SD_CHECK (strstr (msg, "320x240") && strstr (msg, "160x60"), "%s", msg);

  /* the identity changes no bit of the disparity */
  SdSynthPair scene;
  SD_CHECK (sd_synth_demo (&scene, W, H), "synthetic scene");
  SdPlane l = { scene.left, W, H, W, SD_PIXEL_GRAY8 };
  SdPlane r = { scene.right, W, H, W, SD_PIXEL_GRAY8 };
  uint16_t *plain = calloc ((size_t) W * H, 2);
  uint16_t *mapped = calloc ((size_t) W * H, 2);
  run ("reference", NULL, &l, &r, plain);
  run ("reference", id, &l, &r, mapped);
  SD_CHECK (memcmp (plain, mapped, (size_t) W * H * 2) == 0,
      "the identity rectification changed the disparity");

  /* pairs of another size than the maps' are refused */
  SdParams p;
  SdError err = { 0 };
  sd_params_init (&p);
  SdEngine *e = sd_engine_new ("cpu", 0, &p, &err);
  SD_CHECK (sd_engine_set_rectification (e, id, &err) == SD_OK, "%s",
      err.message);
  SdPlane small_l = l, small_r = r, o = { plain, W - 2, H, W * 2,
    SD_PIXEL_GRAY16
  };
  small_l.width = small_r.width = W - 2;
  SD_CHECK (sd_engine_process (e, &small_l, &small_r, &o, NULL, &err) ==
      SD_ERROR_INVALID_ARGUMENT, "a pair of another size was taken");
  SD_CHECK (strstr (err.message, "160x120") && strstr (err.message,
          "158x120"), "%s", err.message);
  /* and without maps they are taken again */
  SD_CHECK (sd_engine_set_rectification (e, NULL, &err) == SD_OK, "%s",
      err.message);
  SD_CHECK (sd_engine_process (e, &small_l, &small_r, &o, NULL, &err) == SD_OK,
      "%s", err.message);
  sd_engine_free (e);
  free (plain);
  free (mapped);
  sd_synth_free (&scene);
  sd_rectification_free (id);
}

/* A distorted, rotated rig: the cpu backend's threaded remap gives the
 * reference's bits, and the rectified views line up (the disparity is
 * mostly valid where it was mostly invalid raw). */
static void
test_rig (void)
{
  const int w = 320, h = 240;
  char msg[256];
  SdStereoCalib c;
  SdRigScene scene;
  sd_rig_make (&c, w, h);
  sd_rig_scene_make (&scene, &c);
  uint8_t *raw[2];
  for (int j = 0; j < 2; j++) {
    raw[j] = malloc ((size_t) w * h);
    sd_rig_render (&c, &scene, j, raw[j], w, h);
  }
  SdRectification *rect = sd_rectification_new (&c, w, h, msg, sizeof (msg));
  SD_CHECK (rect != NULL, "%s", msg);
  SdPlane l = { raw[0], w, h, w, SD_PIXEL_GRAY8 };
  SdPlane r = { raw[1], w, h, w, SD_PIXEL_GRAY8 };
  uint16_t *ref = calloc ((size_t) w * h, 2), *fast = calloc ((size_t) w * h,
      2);
  run ("reference", rect, &l, &r, ref);
  run ("cpu", rect, &l, &r, fast);
  SD_CHECK (memcmp (ref, fast, (size_t) w * h * 2) == 0,
      "cpu and reference differ on the rectified rig");
  sd_rectification_free (rect);
  free (ref);
  free (fast);
  free (raw[0]);
  free (raw[1]);
}

/* A distorted rig's left map at w x h. */
static SdRectification *
rig_rectification (int w, int h)
{
  char msg[256];
  SdStereoCalib c;
  sd_rig_make (&c, w, h);
  SdRectification *rect = sd_rectification_new (&c, w, h, msg, sizeof (msg));
  SD_CHECK (rect != NULL, "%s", msg);
  return rect;
}

/* One byte of each pixel of an interleaved image (stride and pixel
 * stride as RGBx's) remaps to the bits the pipeline's packed remap gives
 * that byte's plane, and the other bytes stay as they were; a plane with
 * padded rows does too. */
static void
test_component (void)
{
  const int w = 77, h = 53, stride = 4 * w + 12;
  SdRectification *rect = rig_rectification (w, h);
  uint8_t *rgbx = malloc ((size_t) stride * h);
  uint8_t *out = malloc ((size_t) stride * h);
  uint8_t *plane = malloc ((size_t) w * h), *want = malloc ((size_t) w * h);
  uint32_t seed = 7;
  for (size_t i = 0; i < (size_t) stride * h; i++) {
    seed = seed * 1664525u + 1013904223u;
    rgbx[i] = (uint8_t) (seed >> 24);
  }
  memset (out, 0xa5, (size_t) stride * h);
  for (int c = 0; c < 3; c++)
    sd_rectify_component (rect->map[0], rgbx + c, stride, out + c, stride, 4,
        w, h);
  int differ = 0, touched = 0;
  for (int c = 0; c < 3; c++) {
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        plane[y * w + x] = rgbx[(size_t) y * stride + 4 * x + c];
    sd_rectify_rows (rect->map[0], plane, want, w, h, 0, h);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        differ += out[(size_t) y * stride + 4 * x + c] != want[y * w + x];
  }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      touched += out[(size_t) y * stride + 4 * x + 3] != 0xa5;
  SD_CHECK_INT (differ, 0);
  SD_CHECK_INT (touched, 0);

  /* a plane whose rows are padded: the padding is neither read nor
   * written */
  const int pstride = w + 3;
  uint8_t *padded = calloc ((size_t) pstride * h, 1);
  for (int y = 0; y < h; y++)
    memcpy (padded + (size_t) y * pstride, plane + (size_t) y * w, w);
  memset (out, 0xa5, (size_t) pstride * h);
  sd_rectify_component (rect->map[0], padded, pstride, out, pstride, 1, w, h);
  differ = touched = 0;
  for (int y = 0; y < h; y++) {
    differ += memcmp (out + (size_t) y * pstride, want + (size_t) y * w, w)
        != 0;
    for (int x = w; x < pstride; x++)
      touched += out[(size_t) y * pstride + x] != 0xa5;
  }
  SD_CHECK_INT (differ, 0);
  SD_CHECK_INT (touched, 0);
  free (padded);
  free (rgbx);
  free (out);
  free (plane);
  free (want);
  sd_rectification_free (rect);
}

/* The bilinear sample at (mx, my) in 1/256 pixel of a 16-bit plane, in
 * double: the value the rounded sample must be within half a level of. */
static double
exact_sample16 (const uint16_t * src, int w, int h, int32_t mx, int32_t my)
{
  const double x = mx / 256.0, y = my / 256.0;
  const int x0 = (int) floor (x), y0 = (int) floor (y);
  const int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
  const double fx = x - x0, fy = y - y0;
  return (1 - fy) * ((1 - fx) * src[y0 * w + x0] + fx * src[y0 * w + x1]) +
      fy * ((1 - fx) * src[y1 * w + x0] + fx * src[y1 * w + x1]);
}

/* 16-bit components: samples of 8-bit values give the 8-bit remap's bits;
 * full 16-bit values are within half a level of the exact bilinear value
 * (no overflow); a value of depth bits at shift (P010's 10 from bit 6,
 * I420_10LE's 10 from bit 0) is remapped alone, the bits around it read
 * as 0 and written 0, on every second sample (interleaved chroma). */
static void
test_component16 (void)
{
  const int w = 77, h = 53;
  const size_t n = (size_t) w * h;
  SdRectification *rect = rig_rectification (w, h);
  uint16_t *in = malloc (2 * n * sizeof (uint16_t));
  uint16_t *out = malloc (2 * n * sizeof (uint16_t));
  uint16_t *values = malloc (n * sizeof (uint16_t));
  uint16_t *want = malloc (n * sizeof (uint16_t));
  uint8_t *plane = malloc (n), *want8 = malloc (n);
  uint32_t seed = 11;
  for (size_t i = 0; i < 2 * n; i++) {
    seed = seed * 1664525u + 1013904223u;
    in[i] = (uint16_t) (seed >> 16);
  }

  for (size_t i = 0; i < n; i++)
    values[i] = plane[i] = (uint8_t) in[i];
  sd_rectify_rows (rect->map[0], plane, want8, w, h, 0, h);
  sd_rectify_component16 (rect->map[0], values, 2 * w, out, 2 * w, 1, 16, 0,
      w, h);
  int differ = 0;
  for (size_t i = 0; i < n; i++)
    differ += out[i] != want8[i];
  SD_CHECK_INT (differ, 0);

  sd_rectify_component16 (rect->map[0], in, 2 * w, out, 2 * w, 1, 16, 0, w,
      h);
  double worst = 0;
  for (size_t i = 0; i < n; i++) {
    const double e = fabs (out[i] - exact_sample16 (in, w, h,
            rect->map[0][2 * i], rect->map[0][2 * i + 1]));
    worst = e > worst ? e : worst;
  }
  SD_CHECK (worst <= 0.5 + 1e-9, "16-bit samples %.3f levels from the exact "
      "bilinear value", worst);

  static const int fields[2][2] = { {10, 6}, {10, 0} };
  for (int k = 0; k < 2; k++) {
    const int depth = fields[k][0], shift = fields[k][1];
    const uint32_t mask = (1u << depth) - 1;
    for (size_t i = 0; i < n; i++)
      values[i] = (uint16_t) ((in[2 * i + 1] >> shift) & mask);
    sd_rectify_component16 (rect->map[0], values, 2 * w, want, 2 * w, 1, 16,
        0, w, h);
    memset (out, 0xa5, 2 * n * sizeof (uint16_t));
    sd_rectify_component16 (rect->map[0], in + 1, 4 * w, out + 1, 4 * w, 2,
        depth, shift, w, h);
    int wrong = 0, touched = 0;
    for (size_t i = 0; i < n; i++) {
      wrong += out[2 * i + 1] != (uint16_t) (want[i] << shift);
      touched += out[2 * i] != 0xa5a5;
    }
    SD_CHECK (wrong == 0, "%d bits from bit %d: %d samples differ", depth,
        shift, wrong);
    SD_CHECK_INT (touched, 0);
  }
  free (in);
  free (out);
  free (values);
  free (want);
  free (plane);
  free (want8);
  sd_rectification_free (rect);
}

/* The largest difference between the chroma of a ramp, remapped through
 * its subsampled map, and the mean of the remapped luma it covers. */
static int
chroma_error (const SdRectification * rect, int w, int h, int sub_x,
    int sub_y, int ax, int ay)
{
  int cw, ch;
  int32_t *cmap = sd_rectify_map_subsampled (rect->map[0], w, h, sub_x,
      sub_y, &cw, &ch);
  SD_CHECK (cmap != NULL, "no memory for a subsampled map");
  const int sx = 1 << sub_x, sy = 1 << sub_y;
  SD_CHECK_INT (cw, (w + sx - 1) / sx);
  SD_CHECK_INT (ch, (h + sy - 1) / sy);
  uint8_t *luma = malloc ((size_t) w * h), *rl = malloc ((size_t) w * h);
  uint8_t *chroma = malloc ((size_t) cw * ch), *rc = malloc ((size_t) cw * ch);
  /* a ramp of the raw position; chroma samples it at their centres */
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      luma[y * w + x] = (uint8_t) (ax * x + ay * y);
  for (int j = 0; j < ch; j++)
    for (int i = 0; i < cw; i++)
      chroma[j * cw + i] = (uint8_t) lround (ax * ((i + 0.5) * sx - 0.5) +
          ay * ((j + 0.5) * sy - 0.5));
  sd_rectify_rows (rect->map[0], luma, rl, w, h, 0, h);
  sd_rectify_component (cmap, chroma, cw, rc, cw, 1, cw, ch);
  int worst = 0;
  /* the frame's last chroma column and row may cover view pixels that do
   * not exist: whole samples only */
  for (int j = 0; j < h / sy; j++)
    for (int i = 0; i < w / sx; i++) {
      int sum = 0;
      for (int v = 0; v < sy; v++)
        for (int u = 0; u < sx; u++)
          sum += rl[(j * sy + v) * w + i * sx + u];
      const int e = abs (rc[j * cw + i] * sx * sy - sum);
      worst = e > worst ? e : worst;
    }
  free (cmap);
  free (luma);
  free (rl);
  free (chroma);
  free (rc);
  /* in levels, rounded up */
  return (worst + sx * sy - 1) / (sx * sy);
}

/* Subsampled components (4:2:0, 4:2:2, 4:1:1) of a ramp land where their
 * luma does: a chroma sample sited half a view pixel off would differ by
 * half a ramp step (2 levels here), more than the rounding allows. */
static void
test_subsampled (void)
{
  const int w = 80, h = 60;
  SdRectification *rect = rig_rectification (w, h);
  static const int subs[3][2] = { {1, 1}, {1, 0}, {2, 0} };
  for (int k = 0; k < 3; k++) {
    const int ex = chroma_error (rect, w, h, subs[k][0], subs[k][1], 3, 0);
    const int ey = chroma_error (rect, w, h, subs[k][0], subs[k][1], 0, 4);
    SD_CHECK (ex <= 1 && ey <= 1, "%d:%d subsampling: chroma %d and %d "
        "levels from the luma it covers", subs[k][0], subs[k][1], ex, ey);
  }
  /* not subsampled: the view's own map */
  int cw, ch;
  int32_t *same = sd_rectify_map_subsampled (rect->map[0], w, h, 0, 0, &cw,
      &ch);
  SD_CHECK (same && cw == w && ch == h && memcmp (same, rect->map[0],
          2 * sizeof (int32_t) * w * h) == 0, "a map at 1:1 is not the "
      "view's");
  free (same);
  sd_rectification_free (rect);
}

int
main (void)
{
  test_sample ();
  test_identity_and_scale ();
  test_rig ();
  test_component ();
  test_component16 ();
  test_subsampled ();
  return sd_test_exit ("test-rectify");
}
