/* Rectification maps and the remap stage: the bilinear sample worked by
 * hand, an identity calibration that changes nothing, a calibration made
 * at twice the resolution, refusals, and the cpu backend giving the
 * reference's bits on a distorted rig. */
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

int
main (void)
{
  test_sample ();
  test_identity_and_scale ();
  test_rig ();
  return sd_test_exit ("test-rectify");
}
