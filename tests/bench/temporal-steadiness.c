/* What depthtemporal does to a scene over time, seen through a noisy
 * sensor: every frame gets fresh noise (uniform, +-NOISE grey levels, left
 * and right apart) and goes through the cpu backend (defaults), then
 * through the temporal filter at its defaults and with persistence 2.
 *
 *   temporal-steadiness SET_DIR [FRAMES [NOISE]]
 *     a still scene: a stereo set's pair (its suggested disparities)
 *   temporal-steadiness --moving SPEED [FRAMES [NOISE]]
 *     a synthetic 640x480 scene (48 disparities) whose box, 160x120 at
 *     disparity 24 in front of a slanted plane at 8 to 14, moves SPEED
 *     pixels to the right every frame
 *
 * Prints, over frames 2..FRAMES: bad>1 against the ground truth (invalid
 * counted bad) where there is one, the mean change of a pixel valid in two
 * frames in a row (px), and the share of pixels that go from valid to
 * invalid or back between two frames. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sd-eval.h"
#include "sd-synth.h"
#include "sd-temporal.h"

enum { RAW, FILTERED, HELD, N_VARIANTS };
static const char *const variant_names[N_VARIANTS] = { "stereodepth alone",
  "depthtemporal (defaults)", "depthtemporal persistence=2"
};
static const SdTemporalParams filters[N_VARIANTS] = { {256, 0, 0},
{102, 16, 0}, {102, 16, 2}
};

/* Where the frames come from: a set's pair, or the moving box. */
typedef struct
{
  char name[64];
  int width, height, num_disparities;
  SdStereoSet set;              /* still: the pair */
  uint8_t *luma[2];
  int speed;                    /* moving: pixels a frame; 0 for a set */
  SdSynthPair synth;
} Source;

/* Frame f's noiseless luma and ground truth (NULL: none). */
static const float *
source_frame (Source * src, int f, const uint8_t ** left,
    const uint8_t ** right)
{
  if (!src->speed) {
    *left = src->luma[0];
    *right = src->luma[1];
    return src->set.gt;
  }
  const int x0 = 40 + src->speed * f % 400;
  const SdSynthLayer layers[] = { {0, 0, 0, 0, 8, 0.01, 0}, {x0, 180,
          x0 + 160, 300, 24, 0, 0}
  };
  sd_synth_free (&src->synth);
  if (!sd_synth_render (&src->synth, src->width, src->height, layers, 2, 7))
    return NULL;
  *left = src->synth.left;
  *right = src->synth.right;
  return src->synth.gt;
}

static uint32_t seed = 1;

/* luma with noise in [-amplitude, amplitude], clamped */
static void
add_noise (const uint8_t * luma, uint8_t * out, size_t n, int amplitude)
{
  for (size_t i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    const int v = luma[i] + (int) ((seed >> 16) % (2 * amplitude + 1)) -
        amplitude;
    out[i] = (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
  }
}

static bool
source_open (Source * src, int argc, char **argv, int *first_option)
{
  char msg[256];
  memset (src, 0, sizeof (*src));
  if (argc > 2 && !strcmp (argv[1], "--moving")) {
    src->speed = atoi (argv[2]);
    src->width = 640;
    src->height = 480;
    src->num_disparities = 48;
    snprintf (src->name, sizeof (src->name), "box moving %d px a frame",
        src->speed);
    *first_option = 3;
    return src->speed > 0;
  }
  if (argc < 2 || !sd_stereo_set_load (&src->set, argv[1], msg,
          sizeof (msg))) {
    if (argc >= 2)
      fprintf (stderr, "%s\n", msg);
    return false;
  }
  snprintf (src->name, sizeof (src->name), "%s", src->set.name);
  src->width = src->set.left->plane.width;
  src->height = src->set.left->plane.height;
  src->num_disparities = src->set.suggested_disparities;
  for (int v = 0; v < 2; v++) {
    src->luma[v] = malloc ((size_t) src->width * src->height);
    sd_plane_to_luma (v ? &src->set.right->plane : &src->set.left->plane,
        src->luma[v]);
  }
  *first_option = 2;
  return true;
}

int
main (int argc, char **argv)
{
  Source src;
  int opt;
  if (!source_open (&src, argc, argv, &opt)) {
    fprintf (stderr, "usage: temporal-steadiness SET_DIR [FRAMES [NOISE]]\n"
        "       temporal-steadiness --moving SPEED [FRAMES [NOISE]]\n");
    return 2;
  }
  const int frames = argc > opt ? atoi (argv[opt]) : 30;
  const int noise = argc > opt + 1 ? atoi (argv[opt + 1]) : 2;
  const int w = src.width, h = src.height;
  const size_t n = (size_t) w * h;
  SdParams params;
  sd_params_init (&params);
  params.num_disparities = src.num_disparities;
  SdError err = { 0 };
  SdEngine *engine = sd_engine_new ("cpu", 0, &params, &err);
  if (!engine || frames < 3 || noise < 0) {
    fprintf (stderr, "%s\n", engine ? "FRAMES >= 3, NOISE >= 0" : err.message);
    return 1;
  }

  uint8_t *noisy[2] = { malloc (n), malloc (n) };
  uint16_t *out[N_VARIANTS], *prev[N_VARIANTS];
  SdTemporal history[N_VARIANTS];
  double bad1[N_VARIANTS] = { 0 }, change[N_VARIANTS] = { 0 },
      blink[N_VARIANTS] = { 0 };
  long change_pixels[N_VARIANTS] = { 0 };
  bool have_gt = false;
  for (int k = 0; k < N_VARIANTS; k++) {
    out[k] = malloc (n * 2);
    prev[k] = malloc (n * 2);
    sd_temporal_init (&history[k]);
  }

  for (int f = 0; f < frames; f++) {
    const uint8_t *clean[2];
    const float *gt = source_frame (&src, f, &clean[0], &clean[1]);
    if (src.speed && !gt)
      return 1;
    have_gt = gt != NULL;
    for (int v = 0; v < 2; v++)
      add_noise (clean[v], noisy[v], n, noise);
    SdPlane l = { noisy[0], w, h, (size_t) w, SD_PIXEL_GRAY8 };
    SdPlane r = { noisy[1], w, h, (size_t) w, SD_PIXEL_GRAY8 };
    SdPlane o = { out[RAW], w, h, (size_t) w * 2, SD_PIXEL_GRAY16 };
    if (sd_engine_process (engine, &l, &r, &o, NULL, &err) != SD_OK) {
      fprintf (stderr, "%s\n", err.message);
      return 1;
    }
    for (int k = 0; k < N_VARIANTS; k++) {
      if (k != RAW)
        memcpy (out[k], out[RAW], n * 2);
      sd_temporal_apply (&history[k], &filters[k], out[k], w, h,
          (size_t) w * 2);
      if (f >= 1) {
        long blinked = 0;
        for (size_t i = 0; i < n; i++) {
          if (out[k][i] && prev[k][i]) {
            change[k] += abs ((int) out[k][i] - (int) prev[k][i]) / 16.0;
            change_pixels[k]++;
          }
          blinked += !out[k][i] != !prev[k][i];
        }
        blink[k] += 100.0 * blinked / n;
        if (gt)
          bad1[k] += sd_accuracy_score (out[k], (size_t) w * 2, gt, NULL,
              w, h).bad1;
      }
      memcpy (prev[k], out[k], n * 2);
    }
  }

  printf ("%s, %dx%d, %d disparities, %d frames, noise +-%d:\n", src.name,
      w, h, params.num_disparities, frames, noise);
  for (int k = 0; k < N_VARIANTS; k++) {
    const double m = frames - 1;
    if (have_gt)
      printf ("  %-28s bad>1 %6.2f %%", variant_names[k], bad1[k] / m);
    else
      printf ("  %-28s", variant_names[k]);
    printf ("  change %.4f px  blink %.2f %%\n",
        change[k] / (double) change_pixels[k], blink[k] / m);
    sd_temporal_clear (&history[k]);
    free (out[k]);
    free (prev[k]);
  }
  free (noisy[0]);
  free (noisy[1]);
  for (int v = 0; v < 2; v++)
    free (src.luma[v]);
  sd_synth_free (&src.synth);
  if (!src.speed)
    sd_stereo_set_free (&src.set);
  sd_engine_free (engine);
  return 0;
}
