/* Hierarchical belief propagation on the CPU: the message against hand-
 * worked cases, the pyramid's bookkeeping, synthetic scenes, determinism,
 * and accuracy on the Middlebury sets against cudaBeliefProp's published
 * numbers (argv[1] is the data folder; those checks skip without it). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cpu/sd-cpu.h"
#include "sd-engine.h"
#include "sd-eval.h"
#include "sd-synth.h"
#include "sd-test.h"

static void
check_floats (const float *got, const float *expect, int n, const char *what)
{
  for (int i = 0; i < n; i++)
    SD_CHECK (fabsf (got[i] - expect[i]) < 1e-6f, "%s[%d] = %g, expected %g",
        what, i, got[i], expect[i]);
}

static void
test_message (void)
{
  /* h = [0 3 5 1]; forward pass [0 1 2 1]; backward pass keeps it; the cap
   * min + 2 = 2 cuts nothing; the mean 1 is taken off */
  const float data[4] = { 0, 3, 5, 1 };
  float out[4];
  sd_bp_message (data, NULL, NULL, NULL, out, 4, 2.0f);
  check_floats (out, (const float[4]) {
      -1, 0, 1, 0}, 4, "message");
  /* a cap of 1: [0 1 1 1], mean 0.75 */
  sd_bp_message (data, NULL, NULL, NULL, out, 4, 1.0f);
  check_floats (out, (const float[4]) {
      -0.75f, 0.25f, 0.25f, 0.25f}, 4, "capped message");
  /* incoming messages add: h = [1 4 16 2] -> [1 2 3 2] -> mean 2 */
  const float a[4] = { 1, 1, 1, 1 }, b[4] = { 0, 0, 10, 0 };
  sd_bp_message (data, a, b, NULL, out, 4, 2.0f);
  check_floats (out, (const float[4]) {
      -1, 0, 1, 0}, 4, "message with inputs");
}

static void
test_data_cost (void)
{
  SdParams p;
  sd_params_init (&p);
  p.num_disparities = 2;
  p.data_weight = 0.5f;
  p.data_trunc = 15;
  /* left [10 50 30], right [50 30 10]: x0: |10-50| -> 15 (truncated) for
   * both (d=1 reads the edge pixel 50); x1: |50-30|=20 -> 15, 0;
   * x2: |30-10|=20 -> 15, 0; all times 0.5 */
  const float left[3] = { 10, 50, 30 }, right[3] = { 50, 30, 10 };
  float cost[6];
  sd_cpu_bp_data_cost (&p, left, right, NULL, NULL, cost, 3, 1);
  check_floats (cost, (const float[6]) {
      7.5f, 7.5f, 7.5f, 0, 7.5f, 0}, 6, "data cost");
  /* census: Hamming distances, truncated at 3, times 0.5: x0: |0xf ^ 0| = 4
   * -> 3 for both; x1: 0 ^ 1 -> 1, 0 ^ 0 (edge) -> 0; x2: 3 ^ 7 -> 1,
   * 3 ^ 1 -> 1 */
  const uint64_t census_left[3] = { 0xf, 0x0, 0x3 };
  const uint64_t census_right[3] = { 0x0, 0x1, 0x7 };
  p.data_trunc = 3;
  p.cost = SD_COST_CENSUS;
  sd_cpu_bp_data_cost (&p, left, right, census_left, census_right, cost, 3,
      1);
  check_floats (cost, (const float[6]) {
      1.5f, 1.5f, 0.5f, 0, 0.5f, 0.5f}, 6, "census data cost");
  /* census-ad (9x7: census range 62), untruncated: (3 h + min(AD, 16) *
   * 62 / 16 + 2) >> 2: x0: h 4, AD 40 -> (12 + 62 + 2) >> 2 = 19 for both;
   * x1: h 1, AD 20 -> 16; h 0, AD 0 -> 0; x2: h 1, AD 20 -> 16; h 1, AD 0
   * -> 1; times 0.5 */
  p.cost = SD_COST_CENSUS_AD;
  p.data_trunc = 100;
  sd_cpu_bp_data_cost (&p, left, right, census_left, census_right, cost, 3,
      1);
  check_floats (cost, (const float[6]) {
      9.5f, 9.5f, 8, 0, 8, 0.5f}, 6, "census-ad data cost");
  /* tiled-bp takes its census part */
  p.algorithm = SD_ALGORITHM_TILED_BP;
  p.data_trunc = 3;
  sd_cpu_bp_data_cost (&p, left, right, census_left, census_right, cost, 3,
      1);
  check_floats (cost, (const float[6]) {
      1.5f, 1.5f, 0.5f, 0, 0.5f, 0.5f}, 6, "tiled-bp census-ad data cost");
}

static void
test_pyramid_size (void)
{
  SdParams p;
  sd_params_init (&p);
  p.num_disparities = 2;
  p.levels = 3;
  /* 5x3 -> 3x2 -> 2x1: 15 + 6 + 2 pixels, five arrays of 2 each */
  SD_CHECK_INT (sd_cpu_hbp_workspace_bytes (&p, 5, 3), 4 * 5 * 2 * 23);
  /* automatic depth: the coarsest level keeps 16..31 pixels on its short
   * side (Tsukuba 288 -> 18 after 4 halvings: 5 levels) */
  p.levels = 0;
  SD_CHECK_INT (sd_params_bp_levels (&p, 384, 288), 5);
  SD_CHECK_INT (sd_params_bp_levels (&p, 450, 375), 5);
  SD_CHECK_INT (sd_params_bp_levels (&p, 900, 750), 6);
  SD_CHECK_INT (sd_params_bp_levels (&p, 1920, 1080), 7);
  SD_CHECK_INT (sd_params_bp_levels (&p, 20, 1), 1);
  p.num_disparities = 60;
  SD_CHECK (fabsf (sd_params_bp_disc_trunc (&p) - 8.0f) < 1e-6f,
      "automatic disc-trunc %g", sd_params_bp_disc_trunc (&p));
  /* ... and no more than 9 for wider ranges */
  p.num_disparities = 160;
  SD_CHECK (fabsf (sd_params_bp_disc_trunc (&p) - 9.0f) < 1e-6f,
      "automatic disc-trunc at 160 disparities %g",
      sd_params_bp_disc_trunc (&p));
}

static uint16_t *
run (const SdParams * p, const uint8_t * l, const uint8_t * r, int w, int h)
{
  SdError err;
  SdEngine *e = sd_engine_new ("cpu", 0, p, &err);
  SD_CHECK (e != NULL, "%s", err.message);
  uint16_t *disp = malloc (sizeof (uint16_t) * w * h);
  SdPlane left = { (void *) l, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  SdPlane right = { (void *) r, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  SdPlane out = { disp, w, h, sizeof (uint16_t) * w, SD_PIXEL_GRAY16 };
  SD_CHECK (e && sd_engine_process (e, &left, &right, &out, NULL, &err) == SD_OK,
      "%s", err.message);
  sd_engine_free (e);
  return disp;
}

/* Same bar as SGM: within 1 px on 99 % of the pixels seen in both views. */
static void
test_synthetic (void)
{
  const int w = 200, h = 150;
  const SdSynthLayer planes[] = {
    {0, 0, 0, 0, 6, 0, 0}, {30, 20, 100, 90, 18, 0, 0},
    {110, 60, 180, 140, 31, 0, 0},
  };
  const SdSynthLayer slanted[] = { {0, 0, 0, 0, 9, 0.06, 0.04} };
  const SdSynthLayer texture[] = { {0, 0, 0, 0, 13, 0, 0} };
  const struct
  {
    const char *name;
    const SdSynthLayer *layers;
    int n, num_disparities;
  } scenes[] = {
    {"fronto-parallel planes", planes, 3, 48},
    {"slanted plane", slanted, 1, 32},
    {"random texture", texture, 1, 32},
  };
  for (size_t s = 0; s < sizeof (scenes) / sizeof (scenes[0]); s++) {
    SdSynthPair pair;
    sd_synth_render (&pair, w, h, scenes[s].layers, scenes[s].n, 7);
    SdParams p;
    sd_params_init (&p);
    /* the matcher alone: these scenes' random-noise textures put no luma
     * edge where a surface ends, which the guided median needs (on them it
     * rounds the planes' corners off: SGM 99.84 -> 99.03 % within 1 px); its
     * gain is measured on the real and rendered sets, test-accuracy */
    p.guided_median = false;
    p.algorithm = SD_ALGORITHM_HBP;
    p.num_disparities = scenes[s].num_disparities;
    uint16_t *disp = run (&p, pair.left, pair.right, w, h);
    SdAccuracy a = sd_accuracy_score (disp, sizeof (uint16_t) * w, pair.gt,
        pair.visible, w, h);
    printf ("hbp %-24s within 1 px on %.2f %% of %ld visible pixels "
        "(invalid %.2f %%)\n", scenes[s].name, 100 - a.bad1, a.gt_pixels,
        a.invalid);
    SD_CHECK (a.bad1 <= 1.0, "%s: %.2f %% off by more than 1 px or invalid",
        scenes[s].name, a.bad1);
    /* the same input gives the same bits */
    uint16_t *again = run (&p, pair.left, pair.right, w, h);
    SD_CHECK (memcmp (disp, again, sizeof (uint16_t) * w * h) == 0,
        "%s: two runs differ", scenes[s].name);
    /* the CPU computes half-precision requests in float */
    p.bp_precision = SD_BP_PRECISION_HALF;
    uint16_t *half = run (&p, pair.left, pair.right, w, h);
    SD_CHECK (memcmp (disp, half, sizeof (uint16_t) * w * h) == 0,
        "%s: bp-precision half differs on the CPU", scenes[s].name);
    free (disp);
    free (again);
    free (half);
    sd_synth_free (&pair);
  }
}

/* Default parameters with hole filling, on the data cost cudaBeliefProp
 * uses (absolute differences of intensities), against cudaBeliefProp's
 * bad>1 on the same files.  The defaults' census data cost is printed too;
 * test-accuracy holds it to issue 11's measure (on Tsukuba it is worse
 * than absolute differences, on the other five sets better: see
 * docs/algorithms.md). */
static void
test_middlebury (const char *data)
{
  static const struct
  {
    const char *set;
    int num_disparities;        /* as cudaBeliefProp was run */
    double limit;               /* cudaBeliefProp's bad>1, percent */
  } sets[] = {
    {"mb2001_tsukuba", 16, 3.93},
    {"mb2001_venus", 21, 3.19},
    {"mb2003_teddy_quarter", 64, 24.9},
    {"mb2003_cones_quarter", 64, 17.3},
    {"mb2003_teddy_half", 128, 27.3},
    {"mb2003_cones_half", 128, 22.5},
  };
  for (size_t i = 0; i < sizeof (sets) / sizeof (sets[0]); i++) {
    SdParams p;
    sd_params_init (&p);
    p.algorithm = SD_ALGORITHM_HBP;     /* and every other default */
    p.num_disparities = sets[i].num_disparities;
    SdAccuracy census = { 0 }, a = { 0 };
    char msg[512];
    bool ok = sd_stereo_set_score (data, sets[i].set, "cpu", &p, &census,
        msg, sizeof (msg));
    p.cost = SD_COST_AD;
    ok = ok && sd_stereo_set_score (data, sets[i].set, "cpu", &p, &a, msg,
        sizeof (msg));
    if (!ok) {
      SD_CHECK (0, "%s", msg);
      continue;
    }
    printf ("hbp %-22s D=%-3d bad>1 %6.2f %% (cudaBeliefProp %5.2f %%)  "
        "bad>2 %6.2f %%  mae %.3f px; census costs %6.2f %%\n", sets[i].set,
        p.num_disparities, a.bad1, sets[i].limit, a.bad2, a.mae,
        census.bad1);
    SD_CHECK (a.bad1 <= sets[i].limit, "%s: bad>1 %.2f %% is over %.2f %%",
        sets[i].set, a.bad1, sets[i].limit);
  }
}

int
main (int argc, char **argv)
{
  test_message ();
  test_data_cost ();
  test_pyramid_size ();
  test_synthetic ();
  struct stat st;
  if (argc > 1 && stat (argv[1], &st) == 0)
    test_middlebury (argv[1]);
  else
    printf ("no stereo data folder: Middlebury checks not run\n");
  return sd_test_exit ("test-hbp");
}
