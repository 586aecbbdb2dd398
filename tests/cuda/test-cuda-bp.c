/* Belief propagation on CUDA (hbp and tiled-bp) against the CPU
 * reference.  Belief propagation is a float pipeline: at least 99.5 % of
 * the pixels must be identical and the rest within one pixel (16 in the
 * output's units).  The GPU repeats the CPU's float operations in order, so
 * differences come only from where the two compilers still round
 * differently; a pixel whose two smallest beliefs nearly tie can then flip
 * to the neighbouring disparity, never further.  Half-precision messages
 * (hbp) must keep bad>1 within 0.5 percentage points of float's.  Where the
 * tiled-bp kernels cannot run a setting, the CUDA backend must refuse it
 * with a sentence and auto must run it on the CPU.
 *
 * usage: test-cuda-bp [DATA_DIR | --small]; exits 77 (skipped) without a
 * device.  --small runs only tiled-bp's tile cases on a small image. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sd-cuda.h"
#include "sd-engine.h"
#include "sd-eval.h"
#include "sd-synth.h"
#include "sd-test.h"

static uint16_t *
run (const char *backend, const SdParams * p, const SdPlane * l,
    const SdPlane * r)
{
  SdError err;
  SdEngine *e = sd_engine_new (backend, 0, p, &err);
  SD_CHECK (e != NULL, "%s: %s", backend, err.message);
  if (!e)
    return NULL;
  uint16_t *disp = malloc (sizeof (uint16_t) * l->width * l->height);
  SdPlane out = { disp, l->width, l->height, sizeof (uint16_t) * l->width,
    SD_PIXEL_GRAY16
  };
  SD_CHECK (sd_engine_process (e, l, r, &out, NULL, &err) == SD_OK, "%s: %s",
      backend, err.message);
  sd_engine_free (e);
  return disp;
}

/* Compares both backends; returns the CUDA output for further scoring. */
static uint16_t *
agree (const char *what, const SdParams * p, const SdPlane * l,
    const SdPlane * r)
{
  uint16_t *cpu = run ("cpu", p, l, r), *gpu = run ("cuda", p, l, r);
  if (!cpu || !gpu) {
    free (cpu);
    return gpu;
  }
  const long n = (long) l->width * l->height;
  long same = 0, far = 0;
  for (long i = 0; i < n; i++) {
    same += cpu[i] == gpu[i];
    far += abs ((int) cpu[i] - (int) gpu[i]) > 16 && cpu[i] != gpu[i];
  }
  printf ("%-40s %5.2f %% identical, %ld pixel%s more than 1 px apart\n",
      what, 100.0 * same / n, far, far == 1 ? "" : "s");
  SD_CHECK (same >= 0.995 * n, "%s: only %.2f %% identical", what,
      100.0 * same / n);
  SD_CHECK (far == 0, "%s: %ld pixels differ by more than 1 px", what, far);
  free (cpu);
  return gpu;
}

/* Where the CUDA backend has no kernels for p: it refuses with a
 * sentence, and auto runs p on the CPU.  Returns true when it refused. */
static bool
refused (const char *what, const SdParams * p)
{
  SdError err = { 0 };
  if (sd_cuda_backend.supports (p, &err))
    return false;
  SD_CHECK (strstr (err.message, "backend=cpu") != NULL,
      "%s: the refusal does not say what to use: %s", what, err.message);
  SdEngine *e = sd_engine_new ("auto", 0, p, &err);
  SD_CHECK (e && strcmp (sd_engine_backend_name (e), "cpu") == 0,
      "%s: auto does not fall back to the CPU", what);
  printf ("%-40s refused by CUDA (%s); auto runs it on the CPU\n", what,
      err.message);
  sd_engine_free (e);
  return true;
}

static void
test_sets (const char *data, SdAlgorithm algorithm)
{
  static const struct
  {
    const char *set;
    int num_disparities;
  } sets[] = {
    {"mb2001_tsukuba", 16}, {"mb2001_venus", 21},
    {"mb2003_teddy_quarter", 64}, {"mb2003_cones_quarter", 64},
    {"mb2003_teddy_half", 128}, {"mb2003_cones_half", 128},
  };
  for (size_t i = 0; i < sizeof (sets) / sizeof (sets[0]); i++) {
    char msg[512], what[128];
    SdStereoSet set;
    if (!sd_stereo_set_open (&set, data, sets[i].set, msg, sizeof (msg))) {
      SD_CHECK (0, "%s", msg);
      continue;
    }
    SdParams p;
    sd_params_init (&p);
    p.algorithm = algorithm;
    p.num_disparities = sets[i].num_disparities;
    snprintf (what, sizeof (what), "%s %s D=%d", sd_enum_to_nick
        (sd_algorithm_entries, algorithm), set.name, p.num_disparities);
    if (refused (what, &p)) {
      sd_stereo_set_free (&set);
      continue;
    }
    /* agreement of the dense output (a left-right check could turn a
     * one-step flip into a hole that filling widens) */
    p.lr_check = SD_LR_CHECK_OFF;
    free (agree (what, &p, &set.left->plane, &set.right->plane));
    if (algorithm == SD_ALGORITHM_TILED_BP) {
      sd_stereo_set_free (&set);
      continue;                 /* its messages are float everywhere */
    }
    /* accuracy as test-hbp measures it: defaults plus hole filling */
    p.lr_check = 1;
    p.fill_holes = SD_FILL_HOLES_ON;
    uint16_t *f = run ("cuda", &p, &set.left->plane, &set.right->plane);
    p.bp_precision = SD_BP_PRECISION_HALF;
    uint16_t *h = run ("cuda", &p, &set.left->plane, &set.right->plane);
    if (f && h) {
      const int w = set.left->plane.width, hh = set.left->plane.height;
      SdAccuracy af = sd_accuracy_score (f, sizeof (uint16_t) * w, set.gt,
          NULL, w, hh);
      SdAccuracy ah = sd_accuracy_score (h, sizeof (uint16_t) * w, set.gt,
          NULL, w, hh);
      printf ("%-40s bad>1 float %.2f %%, half %.2f %%\n", what, af.bad1,
          ah.bad1);
      SD_CHECK (ah.bad1 <= af.bad1 + 0.5, "%s: half %.2f %% vs float %.2f %%",
          what, ah.bad1, af.bad1);
    }
    free (f);
    free (h);
    sd_stereo_set_free (&set);
  }
}

static void
test_scenes (SdAlgorithm algorithm)
{
  const SdSynthLayer planes[] = {
    {0, 0, 0, 0, 6, 0, 0}, {30, 20, 100, 90, 18, 0, 0},
    {110, 60, 180, 140, 31, 0, 0},
  };
  const SdSynthLayer slanted[] = { {0, 0, 0, 0, 9, 0.06, 0.04} };
  const struct
  {
    const char *name;
    const SdSynthLayer *layers;
    int n, w, h, num_disparities, min_disparity;
    float sigma;
  } scenes[] = {
    {"planes 200x150 D=48", planes, 3, 200, 150, 48, 0, 0},
    {"slanted 201x77 D=32 sigma 1", slanted, 1, 201, 77, 32, 0, 1.0f},
    {"planes 200x150 D=100 min 2", planes, 3, 200, 150, 100, 2, 0},
    {"slanted 61x1 D=16", slanted, 1, 61, 1, 16, 0, 0},
    {"planes 37x29 D=256", planes, 3, 37, 29, 256, 0, 0},
  };
  for (size_t s = 0; s < sizeof (scenes) / sizeof (scenes[0]); s++) {
    SdSynthPair pair;
    sd_synth_render (&pair, scenes[s].w, scenes[s].h, scenes[s].layers,
        scenes[s].n, 5);
    SdParams p;
    sd_params_init (&p);
    p.algorithm = algorithm;
    p.num_disparities = scenes[s].num_disparities;
    p.min_disparity = scenes[s].min_disparity;
    p.sigma = scenes[s].sigma;
    char what[128];
    snprintf (what, sizeof (what), "%s %s", sd_enum_to_nick
        (sd_algorithm_entries, algorithm), scenes[s].name);
    if (refused (what, &p)) {
      sd_synth_free (&pair);
      continue;
    }
    SdPlane l = { pair.left, pair.width, pair.height, (size_t) pair.width,
      SD_PIXEL_GRAY8
    };
    SdPlane r = l;
    r.data = pair.right;
    p.lr_check = SD_LR_CHECK_OFF;
    free (agree (what, &p, &l, &r));
    p.subpixel = false;
    p.median = false;
    strncat (what, ", bare labels", sizeof (what) - strlen (what) - 1);
    free (agree (what, &p, &l, &r));
    sd_synth_free (&pair);
  }
}

/* Two engines with different sizes and ranges, used alternately: each must
 * still give what the CPU gives (nothing one engine sets may leak into the
 * other, such as a kernel's shared-memory limit). */
static void
test_two_engines (SdAlgorithm algorithm)
{
  const SdSynthLayer planes[] = {
    {0, 0, 0, 0, 6, 0, 0}, {30, 20, 100, 90, 18, 0, 0},
  };
  SdSynthPair a, b;
  sd_synth_render (&a, 160, 90, planes, 2, 3);
  sd_synth_render (&b, 97, 41, planes, 2, 4);
  SdParams pa, pb;
  sd_params_init (&pa);
  pa.algorithm = algorithm;
  pa.lr_check = SD_LR_CHECK_OFF;
  /* the tiled kernels' limit: 64 disparities */
  pa.num_disparities = algorithm == SD_ALGORITHM_HBP ? 256 : 64;
  pb = pa;
  pb.num_disparities = 24;
  pb.bp_precision = SD_BP_PRECISION_HALF;
  pb.tile_size = 14;
  SdPlane la = { a.left, a.width, a.height, (size_t) a.width, SD_PIXEL_GRAY8 };
  SdPlane ra = la;
  ra.data = a.right;
  SdPlane lb = { b.left, b.width, b.height, (size_t) b.width, SD_PIXEL_GRAY8 };
  SdPlane rb = lb;
  rb.data = b.right;
  uint16_t *cpu_a = run ("cpu", &pa, &la, &ra);
  SdError err;
  SdEngine *ea = sd_engine_new ("cuda", 0, &pa, &err);
  SdEngine *eb = sd_engine_new ("cuda", 0, &pb, &err);
  SD_CHECK (ea && eb, "%s", err.message);
  uint16_t *out_a = malloc (sizeof (uint16_t) * a.width * a.height);
  uint16_t *out_b = malloc (sizeof (uint16_t) * b.width * b.height);
  SdPlane oa = { out_a, a.width, a.height, sizeof (uint16_t) * a.width,
    SD_PIXEL_GRAY16
  };
  SdPlane ob = { out_b, b.width, b.height, sizeof (uint16_t) * b.width,
    SD_PIXEL_GRAY16
  };
  const int failures = sd_test_failures;
  for (int round = 0; ea && eb && round < 3; round++) {
    SD_CHECK (sd_engine_process (eb, &lb, &rb, &ob, NULL, &err) == SD_OK, "%s",
        err.message);
    SD_CHECK (sd_engine_process (ea, &la, &ra, &oa, NULL, &err) == SD_OK, "%s",
        err.message);
    SD_CHECK (cpu_a && memcmp (cpu_a, out_a, sizeof (uint16_t) * a.width *
            a.height) == 0, "round %d: the D=%d engine differs from the CPU "
        "after the D=24 engine ran", round, pa.num_disparities);
  }
  printf ("%s: two engines (160x90 D=%d, 97x41 D=24), interleaved: %s\n",
      sd_enum_to_nick (sd_algorithm_entries, algorithm), pa.num_disparities,
      sd_test_failures > failures ? "FAILED" : "ok");
  sd_engine_free (ea);
  sd_engine_free (eb);
  free (cpu_a);
  free (out_a);
  free (out_b);
  sd_synth_free (&a);
  sd_synth_free (&b);
}

/* tiled-bp: tile sizes that cut a w x h image into partial tiles, and the
 * iteration counts, on one scene; and tiles too large for shared memory */
static void
test_tiles (int w, int h)
{
  const SdSynthLayer planes[] = {
    {0, 0, 0, 0, 6, 0, 0}, {30, 20, 100, 90, 18, 0, 0},
    {110, 60, 180, 140, 31, 0, 0},
  };
  const struct
  {
    int tile, outer, inner;
  } cases[] = { {4, 1, 1}, {7, 2, 3}, {10, 4, 2}, {12, 1, 4}, {15, 3, 1} };
  SdSynthPair pair;
  sd_synth_render (&pair, w, h, planes, 3, 6);
  SdPlane l = { pair.left, pair.width, pair.height, (size_t) pair.width,
    SD_PIXEL_GRAY8
  };
  SdPlane r = l;
  r.data = pair.right;
  for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
    SdParams p;
    sd_params_init (&p);
    p.algorithm = SD_ALGORITHM_TILED_BP;
    p.num_disparities = 24;
    p.min_disparity = 1;
    p.lr_check = SD_LR_CHECK_OFF;
    p.tile_size = cases[i].tile;
    p.outer_iterations = cases[i].outer;
    p.inner_iterations = cases[i].inner;
    char what[128];
    snprintf (what, sizeof (what), "tiled-bp %dx%d D=24 %d/%d/%d", w, h,
        p.tile_size, p.outer_iterations, p.inner_iterations);
    SD_CHECK (!refused (what, &p), "%s: refused", what);
    free (agree (what, &p, &l, &r));
  }
  SdParams big;
  sd_params_init (&big);
  big.algorithm = SD_ALGORITHM_TILED_BP;
  big.num_disparities = 40;
  big.tile_size = 23;
  SD_CHECK (refused ("tiled-bp tile 23 D=40", &big), "a 23x23 tile with 40 "
      "disparities (850 KB of shared memory) was not refused");
  sd_synth_free (&pair);
}

int
main (int argc, char **argv)
{
  if (!sd_cuda_backend.available (0, NULL)) {
    printf ("no CUDA device: skipped\n");
    return SD_TEST_SKIP;
  }
  const SdAlgorithm algorithms[] = { SD_ALGORITHM_HBP,
    SD_ALGORITHM_TILED_BP
  };
  if (argc > 1 && strcmp (argv[1], "--small") == 0) {
    /* what compute-sanitizer's racecheck can go through in minutes */
    test_tiles (45, 23);
    return sd_test_exit ("test-cuda-bp --small");
  }
  test_tiles (203, 151);
  for (int a = 0; a < 2; a++) {
    test_scenes (algorithms[a]);
    test_two_engines (algorithms[a]);
    if (argc > 1)
      test_sets (argv[1], algorithms[a]);
  }
  return sd_test_exit ("test-cuda-bp");
}
