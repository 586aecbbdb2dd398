/* The confidence plane (sd-confidence.h): its formulas on numbers worked
 * by hand, the same bits from the reference and the fast CPU backends, 0
 * exactly where the output has no match (also under fill-holes), errors for
 * planes the engine cannot fill, and that it tells right from wrong: on
 * every classic set the more confident half of the matched pixels has far
 * fewer bad pixels than the other half.
 *
 * Usage: test-confidence DATA_DIR (../shared/data/stereo) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/sd-cpu.h"
#include "sd-confidence.h"
#include "sd-eval.h"
#include "sd-test.h"

static void
test_formulas (void)
{
  /* SGM: 1 - S1 / S2 in 255ths, truncated */
  SD_CHECK (sd_confidence_sgm_margin (100, 200, 1) == 127, "%d",
      sd_confidence_sgm_margin (100, 200, 1));
  SD_CHECK (sd_confidence_sgm_margin (0, 10, 1) == 255, "no cost");
  SD_CHECK (sd_confidence_sgm_margin (0, 0, 1) == 0, "all sums 0");
  SD_CHECK (sd_confidence_sgm_margin (7, 7, 1) == 0, "a tie");
  SD_CHECK (sd_confidence_sgm_margin (5, 0, 0) == 255, "no second");
  /* BP: 255 G / (G + T) */
  SD_CHECK (sd_confidence_bp_margin (1.5f, 1.5f, 1) == 127, "%d",
      sd_confidence_bp_margin (1.5f, 1.5f, 1));
  SD_CHECK (sd_confidence_bp_margin (0.0f, 1.5f, 1) == 0, "no gap");
  SD_CHECK (sd_confidence_bp_margin (1e30f, 1.5f, 1) == 255, "huge gap");
  /* the left-right agreement scales it; a match keeps at least 1 */
  SD_CHECK (sd_confidence_value (200, 3, 0) == 200, "exact agreement");
  SD_CHECK (sd_confidence_value (200, 3, 1) == 150, "%d",
      sd_confidence_value (200, 3, 1));
  SD_CHECK (sd_confidence_value (200, 3, 3) == 50, "at the tolerance");
  SD_CHECK (sd_confidence_value (200, -1, 0) == 200, "check off");
  SD_CHECK (sd_confidence_value (0, 3, 0) == 1, "a match is never 0");

  /* the read-out: sums with a clear winner at 2 and a rival at 5 */
  SdParams p;
  sd_params_init (&p);
  p.num_disparities = 8;
  p.uniqueness = 0;
  const uint16_t s[8] = { 90, 60, 20, 30, 80, 40, 95, 99 };
  int16_t d;
  uint8_t m;
  sd_cpu_wta (&p, s, &d, &m, 1, 1);
  SD_CHECK (m == 255 * (40 - 20) / 40, "margin %d", m);
  /* the neighbours of the winner (30 at index 3) are no rivals */
  const uint16_t three[3] = { 10, 5, 10 };
  p.num_disparities = 3;
  sd_cpu_wta (&p, three, &d, &m, 1, 1);
  SD_CHECK (m == 255, "a winner in the middle of three has no rival: %d",
      m);
}

typedef struct
{
  uint16_t *out;
  uint8_t *conf;
} Result;

static Result
run (const char *backend, const SdParams * params, const SdStereoSet * set)
{
  const int w = set->left->plane.width, h = set->left->plane.height;
  Result r = { calloc ((size_t) w * h, 2), calloc ((size_t) w * h, 1) };
  SdPlane o = { r.out, w, h, (size_t) w * 2, SD_PIXEL_GRAY16 };
  SdPlane c = { r.conf, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  SdError err;
  SdEngine *e = sd_engine_new (backend, 0, params, &err);
  SD_CHECK (e && sd_engine_process (e, &set->left->plane,
          &set->right->plane, &o, &c, &err) == SD_OK, "%s %s: %s",
      set->name, backend, err.message);
  sd_engine_free (e);
  return r;
}

static void
result_free (Result r)
{
  free (r.out);
  free (r.conf);
}

/* The defaults with algorithm, the set's disparities and a confidence. */
static SdParams
params_for (const SdStereoSet * set, SdAlgorithm algorithm)
{
  SdParams p;
  sd_params_init (&p);
  p.algorithm = algorithm;
  p.num_disparities = set->suggested_disparities;
  p.confidence = true;
  return p;
}

/* Reference = cpu, and confidence 0 exactly where the output (fill off) is
 * 0; with fill on, the same confidence but 0 for the removed speckles (a
 * filled pixel was not matched). */
static void
test_backends_agree (const SdStereoSet * set, SdAlgorithm algorithm,
    int lr_check, bool median)
{
  const int w = set->left->plane.width, h = set->left->plane.height;
  const size_t n = (size_t) w * h;
  SdParams p = params_for (set, algorithm);
  p.lr_check = lr_check;
  p.median = median;
  p.fill_holes = SD_FILL_HOLES_OFF;
  char what[160];
  snprintf (what, sizeof (what), "%s %s lr-check %d median %d", set->name,
      sd_enum_to_nick (sd_algorithm_entries, algorithm), lr_check, median);

  Result ref = run ("reference", &p, set);
  Result fast = run ("cpu", &p, set);
  SD_CHECK (memcmp (ref.out, fast.out, n * 2) == 0, "%s: outputs differ",
      what);
  SD_CHECK (memcmp (ref.conf, fast.conf, n) == 0, "%s: confidences differ",
      what);
  long mismatched = 0, matched = 0, high = 0;
  for (size_t i = 0; i < n; i++) {
    mismatched += (ref.out[i] == 0) != (ref.conf[i] == 0);
    matched += ref.out[i] != 0;
    high += ref.conf[i] >= 128;
  }
  SD_CHECK (mismatched == 0, "%s: %ld pixels where confidence 0 and output "
      "0 disagree", what, mismatched);
  /* a plane of one value says nothing */
  SD_CHECK (high > 0 && high < matched, "%s: %ld of %ld matched pixels at "
      "128 or more", what, high, matched);

  /* fill-holes fills the speckles it removes: their confidence goes to 0
   * (they are not matched), every other pixel's stays.  The guided median
   * comes after the fill: left out on both sides; p2-adaptive pinned to
   * what the first run used, since at auto filling would change the
   * matching too. */
  p.guided_median = false;
  p.p2_adaptive = sd_params_p2_adaptive (&p) ? SD_P2_ADAPTIVE_ON :
      SD_P2_ADAPTIVE_OFF;
  Result plain = run ("cpu", &p, set);
  p.fill_holes = SD_FILL_HOLES_ON;
  Result filled = run ("cpu", &p, set);
  sd_output_fill_holes (&p, plain.out, plain.conf, w, h);
  SD_CHECK (memcmp (filled.out, plain.out, n * 2) == 0,
      "%s: fill-holes is not the reference's fill of the output", what);
  SD_CHECK (memcmp (filled.conf, plain.conf, n) == 0,
      "%s: fill-holes changed the confidence beyond the speckles", what);
  result_free (filled);
  result_free (plain);
  result_free (ref);
  result_free (fast);
}

static int
compare_u8 (const void *a, const void *b)
{
  return *(const uint8_t *) a - *(const uint8_t *) b;
}

/* The bad>1 share of the matched ground-truth pixels above the median
 * confidence and at or below it; returns the ratio low / high. */
static double
split_by_confidence (const SdStereoSet * set, SdAlgorithm algorithm)
{
  const int w = set->left->plane.width, h = set->left->plane.height;
  const size_t n = (size_t) w * h;
  const SdParams p = params_for (set, algorithm);
  Result r = run ("cpu", &p, set);
  uint8_t *sorted = malloc (n);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (r.conf[i] && set->gt[i] > 0)
      sorted[m++] = r.conf[i];
  qsort (sorted, m, 1, compare_u8);
  const int median = m ? sorted[m / 2] : 0;
  long count[2] = { 0, 0 }, bad[2] = { 0, 0 };
  for (size_t i = 0; i < n; i++) {
    if (!r.conf[i] || set->gt[i] <= 0)
      continue;
    const int upper = r.conf[i] > median;
    count[upper]++;
    bad[upper] += abs ((int) r.out[i] - (int) (set->gt[i] * 16.0f + 0.5f))
        > 16;
  }
  const double low = count[0] ? 100.0 * bad[0] / count[0] : 0;
  const double hi = count[1] ? 100.0 * bad[1] / count[1] : 0;
  printf ("%-22s %-8s median confidence %3d: bad>1 %5.2f %% of %6ld at or "
      "below, %5.2f %% of %6ld above\n", set->name,
      sd_enum_to_nick (sd_algorithm_entries, algorithm), median, low,
      count[0], hi, count[1]);
  free (sorted);
  result_free (r);
  return hi > 0 ? low / hi : low > 0 ? 1e9 : 0;
}

static void
test_engine_errors (const SdStereoSet * set)
{
  const int w = set->left->plane.width, h = set->left->plane.height;
  uint16_t *out = calloc ((size_t) w * h, 2);
  uint8_t *conf = calloc ((size_t) w * h, 1);
  SdPlane o = { out, w, h, (size_t) w * 2, SD_PIXEL_GRAY16 };
  SdPlane c = { conf, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  SdPlane small = { conf, w / 2, h, (size_t) w, SD_PIXEL_GRAY8 };
  SdParams p;
  sd_params_init (&p);
  p.num_disparities = 16;
  SdError err;
  SdEngine *e = sd_engine_new ("cpu", 0, &p, &err);
  SD_CHECK (sd_engine_process (e, &set->left->plane, &set->right->plane, &o,
          &c, &err) == SD_ERROR_INVALID_ARGUMENT,
      "a confidence plane filled without the parameter");
  SD_CHECK (strstr (err.message, "without a confidence") != NULL, "%s",
      err.message);
  p.confidence = true;
  SD_CHECK (sd_engine_set_params (e, &p, &err) == SD_OK, "%s", err.message);
  SD_CHECK (sd_engine_process (e, &set->left->plane, &set->right->plane, &o,
          &small, &err) == SD_ERROR_INVALID_ARGUMENT,
      "a confidence plane of the wrong size accepted");
  SD_CHECK (strstr (err.message, "GRAY8") != NULL, "%s", err.message);
  /* a pair in flight keeps its confidence until collected; NULL drops it */
  SD_CHECK (sd_engine_submit (e, &set->left->plane, &set->right->plane,
          &err) == SD_OK, "%s", err.message);
  SD_CHECK (sd_engine_submit (e, &set->left->plane, &set->right->plane,
          &err) == SD_OK, "%s", err.message);
  SD_CHECK (sd_engine_collect (e, &o, &c, &err) == SD_OK, "%s",
      err.message);
  uint8_t *first = malloc ((size_t) w * h);
  memcpy (first, conf, (size_t) w * h);
  memset (conf, 0, (size_t) w * h);
  SD_CHECK (sd_engine_collect (e, &o, &c, &err) == SD_OK, "%s",
      err.message);
  SD_CHECK (memcmp (first, conf, (size_t) w * h) == 0,
      "two collects of one pair differ");
  SD_CHECK (sd_engine_process (e, &set->left->plane, &set->right->plane, &o,
          NULL, &err) == SD_OK, "%s", err.message);
  free (first);
  sd_engine_free (e);
  free (out);
  free (conf);
}

int
main (int argc, char **argv)
{
  if (argc < 2) {
    fprintf (stderr, "usage: %s DATA_DIR\n", argv[0]);
    return 2;
  }
  test_formulas ();
  static const char *const sets[] = { "mb2001_tsukuba", "mb2001_venus",
    "mb2003_teddy_quarter", "mb2003_cones_quarter"
  };
  for (size_t i = 0; i < sizeof (sets) / sizeof (sets[0]); i++) {
    SdStereoSet set;
    char msg[256];
    if (!sd_stereo_set_open (&set, argv[1], sets[i], msg, sizeof (msg))) {
      SD_CHECK (0, "%s", msg);
      continue;
    }
    if (i == 0) {
      test_engine_errors (&set);
      test_backends_agree (&set, SD_ALGORITHM_SGM, 3, true);
      test_backends_agree (&set, SD_ALGORITHM_SGM, SD_LR_CHECK_OFF, false);
      test_backends_agree (&set, SD_ALGORITHM_HBP, 1, false);
      test_backends_agree (&set, SD_ALGORITHM_TILED_BP, SD_LR_CHECK_OFF,
          true);
    }
    const SdAlgorithm algorithms[2] = { SD_ALGORITHM_SGM, SD_ALGORITHM_HBP };
    for (int a = 0; a < 2; a++) {
      const double ratio = split_by_confidence (&set, algorithms[a]);
      SD_CHECK (ratio >= 2.0, "%s %s: the less confident half is only "
          "%.2f times as often wrong", sets[i],
          sd_enum_to_nick (sd_algorithm_entries, algorithms[a]), ratio);
    }
    sd_stereo_set_free (&set);
  }
  return sd_test_exit ("test-confidence");
}
