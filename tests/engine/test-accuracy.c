/* Accuracy of the shipped defaults on every shared stereo set (issue 11's
 * measure), on the CPU reference (the CUDA backend gives the same bits):
 *
 * - every set with ground truth: bad>1 over all ground-truth pixels with
 *   invalid counted as bad, bad>1 over the estimated pixels and the invalid
 *   share, as shipped (fill-holes off for SGM), and bad>1 dense
 *   (fill-holes on);
 * - the sets without ground truth (KITTI): the invalid share of all pixels.
 *
 * The limits are outside references, measured on the same files, not
 * values fitted to our output: libSGM v3.1.0 (defaults plus subpixel, 8
 * paths) on the Middlebury sets it was measured on, OpenCV 4.6 StereoSGBM
 * (8 paths, block 5, P1 200, P2 800, uniqueness 10, disp12MaxDiff 1) on the
 * synthetic scenes and the other 2001 sets (tests/bench/opencv-reference.py
 * measures it), and at most 15 % invalid on the driving pairs (OpenCV: 17
 * to 25 %).  Dense limits are issue 11's goals on the four classic sets,
 * set below published SGM's (3.96, 1.57, 12.2, 9.75); until 2026-11-26
 * they were the project's earlier promises of 7, 5, 16 and 14.
 *
 * hbp with its defaults (census data costs, fill-holes on) must stay within
 * 3 points of SGM's dense bad>1 on every set with ground truth.
 *
 * Cameras of unequal brightness (match-brightness on): on the four classic
 * sets with the right view darkened to 3/4, SGM's shipped bad>1 and hbp's
 * dense one must stay within a point of the defaults' on the sets as they
 * are; the same darkened pairs without the stage show that it is what
 * holds them (hbp must then lose more than 10 points: the absolute
 * difference in its census-ad data cost reads the darker view as a
 * mismatch).
 *
 * Rows that do not line up (align-rows, on by default): on the four
 * classic sets with the right view a row lower, SGM's shipped bad>1 must
 * stay within half a point of the sets as they are, and without the stage
 * lose more than 2 points (the census windows then compare other rows).
 *
 * args: the data folders (../shared/data/stereo, ../shared/data/stereo-extra);
 * skipped when none is there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sd-engine.h"
#include "sd-eval.h"
#include "sd-test.h"

typedef struct
{
  const char *set;
  double shipped;               /* bad>1 with invalid as bad, fill off */
  double dense;                 /* bad>1, fill on */
} Limit;

static const Limit limits[] = {
  {"mb2001_barn1", 10.64, 0},
  {"mb2001_barn2", 11.22, 0},
  {"mb2001_bull", 8.94, 0},
  {"mb2001_map", 17.78, 0},
  {"mb2001_poster", 11.77, 0},
  {"mb2001_sawtooth", 11.33, 0},
  {"mb2001_tsukuba", 9.22, 3.5},
  {"mb2001_venus", 7.43, 1.5},
  {"mb2003_teddy_quarter", 22.22, 11},
  {"mb2003_cones_quarter", 19.84, 9},
  {"mb2003_teddy_half", 21.81, 0},
  {"mb2003_cones_half", 18.33, 0},
  {"ft3d_test_a_0000", 28.76, 0},
  {"ft3d_test_b_0149", 24.55, 0},
  {"ft3d_train_a_0000", 37.77, 0},
  {"ft3d_train_b_0749", 25.78, 0},
  {"sceneflow_a0032", 60.61, 0},
};

#define MAX_INVALID_WITHOUT_GT 15.0
#define HBP_MARGIN 3.0
#define DARKER_GAIN 0.75
#define DARKER_MARGIN 1.0
#define DARKER_WITHOUT_MATCHING_LOSS 10.0
#define ROWS_MARGIN 0.5
#define ROWS_WITHOUT_ALIGNING_LOSS 2.0

static const Limit *
limit_of (const char *set)
{
  for (size_t i = 0; i < sizeof (limits) / sizeof (limits[0]); i++)
    if (!strcmp (limits[i].set, set))
      return &limits[i];
  return NULL;
}

static SdAccuracy
run_matching (const SdStereoSet * set, SdAlgorithm algorithm,
    SdFillHoles fill, bool match_brightness, bool align_rows)
{
  SdParams p;
  sd_params_init (&p);
  p.algorithm = algorithm;
  p.fill_holes = fill;
  p.match_brightness = match_brightness;
  p.align_rows = align_rows;
  p.num_disparities = set->suggested_disparities;
  SdError err;
  SdAccuracy a = { 0 };
  SD_CHECK (sd_stereo_set_run (set, "cpu", &p, &a, &err), "%s: %s",
      set->name, err.message);
  return a;
}

/* with the shipped defaults */
static SdAccuracy
run (const SdStereoSet * set, SdAlgorithm algorithm, SdFillHoles fill)
{
  SdParams shipped;
  sd_params_init (&shipped);
  return run_matching (set, algorithm, fill, shipped.match_brightness,
      shipped.align_rows);
}

/* set's right view darkened in place to DARKER_GAIN (8-bit sets) */
static void
darken_right (SdStereoSet * set)
{
  SdPlane *r = &set->right->plane;
  const size_t row = (size_t) r->width * set->right->channels;
  for (int y = 0; y < r->height; y++) {
    uint8_t *px = (uint8_t *) r->data + (size_t) y * r->stride;
    for (size_t x = 0; x < row; x++)
      px[x] = (uint8_t) (px[x] * DARKER_GAIN + 0.5);
  }
}

/* The four classic sets (those with dense limits) again with a darker
 * right camera; as_is: the defaults' SGM shipped and hbp dense bad>1 on
 * them. */
static void
check_darker (SdStereoSet * set, double sgm_as_is, double hbp_as_is)
{
  const Limit *l = limit_of (set->name);
  if (!l || l->dense <= 0 || set->right->maxval != 255)
    return;
  darken_right (set);
  const SdAccuracy sgm = run_matching (set, SD_ALGORITHM_SGM,
      SD_FILL_HOLES_OFF, true, true);
  const SdAccuracy hbp = run_matching (set, SD_ALGORITHM_HBP,
      SD_FILL_HOLES_AUTO, true, true);
  const SdAccuracy sgm_off = run_matching (set, SD_ALGORITHM_SGM,
      SD_FILL_HOLES_OFF, false, true);
  const SdAccuracy hbp_off = run_matching (set, SD_ALGORITHM_HBP,
      SD_FILL_HOLES_AUTO, false, true);
  printf ("%-22s right view x%.2f: sgm bad>1 %6.2f %% (%+.2f; without "
      "matching %+.2f), hbp %6.2f %% (%+.2f; without %+.2f)\n", set->name,
      DARKER_GAIN, sgm.bad1, sgm.bad1 - sgm_as_is, sgm_off.bad1 - sgm_as_is,
      hbp.bad1, hbp.bad1 - hbp_as_is, hbp_off.bad1 - hbp_as_is);
  SD_CHECK (sgm.bad1 <= sgm_as_is + DARKER_MARGIN, "%s darker: sgm bad>1 "
      "%.2f %% against %.2f %% as is", set->name, sgm.bad1, sgm_as_is);
  SD_CHECK (hbp.bad1 <= hbp_as_is + DARKER_MARGIN, "%s darker: hbp bad>1 "
      "%.2f %% against %.2f %% as is", set->name, hbp.bad1, hbp_as_is);
  SD_CHECK (hbp_off.bad1 > hbp_as_is + DARKER_WITHOUT_MATCHING_LOSS,
      "%s darker without brightness matching: hbp bad>1 %.2f %%, not worse "
      "than %.2f %% as is: the check does not test the stage", set->name,
      hbp_off.bad1, hbp_as_is);
}

/* The four classic sets again with the right view a row lower (its first
 * row repeated), then as they were; as_is: the defaults' SGM shipped
 * bad>1 on them. */
static void
check_moved_rows (SdStereoSet * set, double as_is)
{
  const Limit *l = limit_of (set->name);
  if (!l || l->dense <= 0)
    return;
  SdPlane *r = &set->right->plane;
  const size_t bytes = r->stride * r->height;
  uint8_t *saved = malloc (bytes);
  SD_CHECK (saved != NULL, "out of memory");
  if (!saved)
    return;
  memcpy (saved, r->data, bytes);
  for (int y = 1; y < r->height; y++)
    memcpy ((uint8_t *) r->data + y * r->stride, saved + (y - 1) * r->stride,
        r->stride);
  const SdAccuracy on = run_matching (set, SD_ALGORITHM_SGM,
      SD_FILL_HOLES_OFF, false, true);
  const SdAccuracy off = run_matching (set, SD_ALGORITHM_SGM,
      SD_FILL_HOLES_OFF, false, false);
  memcpy (r->data, saved, bytes);
  free (saved);
  printf ("%-22s right view a row lower: sgm bad>1 %6.2f %% (%+.2f; "
      "without aligning the rows %+.2f)\n", set->name, on.bad1,
      on.bad1 - as_is, off.bad1 - as_is);
  SD_CHECK (on.bad1 <= as_is + ROWS_MARGIN, "%s a row lower: sgm bad>1 "
      "%.2f %% against %.2f %% as is", set->name, on.bad1, as_is);
  SD_CHECK (off.bad1 > as_is + ROWS_WITHOUT_ALIGNING_LOSS, "%s a row lower "
      "without align-rows: sgm bad>1 %.2f %%, not worse than %.2f %% as is: "
      "the check does not test the stage", set->name, off.bad1, as_is);
}

static void
check_set (SdStereoSet * set)
{
  const SdAccuracy off = run (set, SD_ALGORITHM_SGM, SD_FILL_HOLES_OFF);
  if (!set->gt) {
    printf ("%-22s D=%-3d invalid %5.2f %% of all pixels (limit %.0f %%)\n",
        set->name, set->suggested_disparities, off.invalid_all,
        MAX_INVALID_WITHOUT_GT);
    SD_CHECK (off.invalid_all <= MAX_INVALID_WITHOUT_GT,
        "%s: %.2f %% invalid", set->name, off.invalid_all);
    return;
  }
  const SdAccuracy on = run (set, SD_ALGORITHM_SGM, SD_FILL_HOLES_ON);
  const SdAccuracy hbp = run (set, SD_ALGORITHM_HBP, SD_FILL_HOLES_AUTO);
  const Limit *l = limit_of (set->name);
  char shipped_limit[16] = "-", dense_limit[16] = "-";
  if (l)
    snprintf (shipped_limit, sizeof (shipped_limit), "%.2f", l->shipped);
  if (l && l->dense > 0)
    snprintf (dense_limit, sizeof (dense_limit), "%.1f", l->dense);
  printf ("%-22s D=%-3d bad>1 %6.2f %% (limit %5s), of estimated %5.2f "
      "%%, invalid %5.2f %%; dense %6.2f %% (limit %4s); hbp %6.2f %% "
      "(%+.2f)\n", set->name, set->suggested_disparities, off.bad1,
      shipped_limit, off.bad1_valid, off.invalid, on.bad1, dense_limit,
      hbp.bad1, hbp.bad1 - on.bad1);
  if (l)
    SD_CHECK (off.bad1 <= l->shipped, "%s: bad>1 %.2f %% is over %.2f %%",
        set->name, off.bad1, l->shipped);
  if (l && l->dense > 0)
    SD_CHECK (on.bad1 <= l->dense, "%s: dense bad>1 %.2f %% is over %.1f %%",
        set->name, on.bad1, l->dense);
  SD_CHECK (hbp.bad1 <= on.bad1 + HBP_MARGIN, "%s: hbp bad>1 %.2f %% is "
      "more than %.0f points over SGM's dense %.2f %%", set->name, hbp.bad1,
      HBP_MARGIN, on.bad1);
  check_moved_rows (set, off.bad1);
  check_darker (set, off.bad1, hbp.bad1);
}

int
main (int argc, char **argv)
{
  int folders = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    char names[64][64];
    const int n = stat (argv[i], &st) == 0 ? sd_stereo_set_names (argv[i],
        names, 64) : -1;
    if (n < 0) {
      printf ("no stereo data folder %s\n", argv[i]);
      continue;
    }
    folders++;
    for (int k = 0; k < n; k++) {
      char msg[512];
      SdStereoSet set;
      if (!sd_stereo_set_open (&set, argv[i], names[k], msg, sizeof (msg))) {
        SD_CHECK (0, "%s", msg);
        continue;
      }
      check_set (&set);
      sd_stereo_set_free (&set);
    }
  }
  if (!folders) {
    printf ("no stereo data: skipped\n");
    return SD_TEST_SKIP;
  }

  return sd_test_exit ("test-accuracy");
}
