/* What depthtemporal does to a still scene seen through a noisy sensor: a
 * stereo set's pair with fresh noise in every frame (uniform, +-NOISE grey
 * levels, left and right apart) through the cpu backend (defaults, the
 * set's disparities), then through the temporal filter at its defaults and
 * with persistence 2.  Prints, over frames 2..FRAMES: bad>1 against the
 * ground truth (invalid counted bad) where the set has it, the mean change
 * of a pixel valid in two frames in a row (px), and the share of pixels
 * that go from valid to invalid or back between two frames.
 *   temporal-steadiness SET_DIR [FRAMES [NOISE]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sd-eval.h"
#include "sd-temporal.h"

enum { RAW, FILTERED, HELD, N_VARIANTS };
static const char *const variant_names[N_VARIANTS] = { "stereodepth alone",
  "depthtemporal (defaults)", "depthtemporal persistence=2"
};

typedef struct
{
  double bad1, change, blink;
  long change_pixels;
} Steadiness;

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

int
main (int argc, char **argv)
{
  SdStereoSet set;
  char msg[256];
  if (argc < 2 || !sd_stereo_set_load (&set, argv[1], msg, sizeof (msg))) {
    fprintf (stderr, "%s\nusage: temporal-steadiness SET_DIR [FRAMES "
        "[NOISE]]\n", argc < 2 ? "no set" : msg);
    return 2;
  }
  const int frames = argc > 2 ? atoi (argv[2]) : 30;
  const int noise = argc > 3 ? atoi (argv[3]) : 2;
  const int w = set.left->plane.width, h = set.left->plane.height;
  const size_t n = (size_t) w * h;
  SdParams params;
  sd_params_init (&params);
  params.num_disparities = set.suggested_disparities;
  SdError err = { 0 };
  SdEngine *engine = sd_engine_new ("cpu", 0, &params, &err);
  if (!engine || frames < 3 || noise < 0) {
    fprintf (stderr, "%s\n", engine ? "FRAMES >= 3, NOISE >= 0" : err.message);
    return 1;
  }

  uint8_t *luma[2], *noisy[2];
  for (int v = 0; v < 2; v++) {
    luma[v] = malloc (n);
    noisy[v] = malloc (n);
    sd_plane_to_luma (v ? &set.right->plane : &set.left->plane, luma[v]);
  }
  uint16_t *out[N_VARIANTS], *prev[N_VARIANTS];
  SdTemporal history[N_VARIANTS];
  const SdTemporalParams filter[N_VARIANTS] = { {256, 0, 0}, {102, 16, 0},
  {102, 16, 2}
  };
  Steadiness sum[N_VARIANTS] = { 0 };
  for (int k = 0; k < N_VARIANTS; k++) {
    out[k] = malloc (n * 2);
    prev[k] = malloc (n * 2);
    sd_temporal_init (&history[k]);
  }

  for (int f = 0; f < frames; f++) {
    for (int v = 0; v < 2; v++)
      add_noise (luma[v], noisy[v], n, noise);
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
      sd_temporal_apply (&history[k], &filter[k], out[k], w, h,
          (size_t) w * 2);
      if (f >= 1) {
        Steadiness *s = &sum[k];
        long blink = 0;
        for (size_t i = 0; i < n; i++) {
          if (out[k][i] && prev[k][i]) {
            s->change += abs ((int) out[k][i] - (int) prev[k][i]) / 16.0;
            s->change_pixels++;
          }
          blink += !out[k][i] != !prev[k][i];
        }
        s->blink += 100.0 * blink / n;
        if (set.gt)
          s->bad1 += sd_accuracy_score (out[k], (size_t) w * 2, set.gt, NULL,
              w, h).bad1;
      }
      memcpy (prev[k], out[k], n * 2);
    }
  }

  printf ("%s, %dx%d, %d disparities, %d frames, noise +-%d:\n", set.name, w,
      h, params.num_disparities, frames, noise);
  for (int k = 0; k < N_VARIANTS; k++) {
    const double m = frames - 1;
    if (set.gt)
      printf ("  %-28s bad>1 %6.2f %%", variant_names[k], sum[k].bad1 / m);
    else
      printf ("  %-28s", variant_names[k]);
    printf ("  change %.4f px  blink %.2f %%\n",
        sum[k].change / (double) sum[k].change_pixels, sum[k].blink / m);
    sd_temporal_clear (&history[k]);
    free (out[k]);
    free (prev[k]);
  }
  for (int v = 0; v < 2; v++) {
    free (luma[v]);
    free (noisy[v]);
  }
  sd_engine_free (engine);
  sd_stereo_set_free (&set);
  return 0;
}
