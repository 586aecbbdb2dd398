/* SdParams: the defaults are valid, every out-of-range value is refused
 * with a sentence that names it, and the textual setter parses. */
#include <string.h>

#include "sd-params.h"
#include "sd-test.h"

static void
expect_refused (void (*mutate) (SdParams *), const char *name)
{
  SdParams p;
  char msg[256] = "";
  sd_params_init (&p);
  mutate (&p);
  SD_CHECK (!sd_params_validate (&p, msg, sizeof (msg)), "%s accepted",
      name);
  SD_CHECK (strstr (msg, name) != NULL, "message '%s' does not name %s", msg,
      name);
}

#define MUTATION(fn, stmt) static void fn (SdParams *p) { stmt; }
MUTATION (ndisp_neg, p->num_disparities = -1)
MUTATION (ndisp_big, p->num_disparities = 257)
MUTATION (mind_neg, p->min_disparity = -1)
MUTATION (mind_big, p->min_disparity = SD_MAX_MIN_DISPARITY + 1)
MUTATION (rank_even, p->rank_window = 8)
MUTATION (rank_small, p->rank_window = 3)
MUTATION (rank_big, p->rank_window = 17)
MUTATION (paths_6, p->paths = 6)
MUTATION (p1_neg, p->p1 = -1)
MUTATION (p1_above_p2, p->p1 = 50; p->p2 = 40)
MUTATION (p2_zero, p->p2 = 0)
MUTATION (p2_big, p->p2 = SD_MAX_P2 + 1)
MUTATION (uniq_neg, p->uniqueness = -1)
MUTATION (uniq_100, p->uniqueness = 100)
MUTATION (lr_low, p->lr_check = -3)
MUTATION (lr_big, p->lr_check = 256)
MUTATION (prefilter_bad, p->prefilter = (SdPrefilter) 42)
MUTATION (cost_bad, p->cost = (SdCost) 42)
MUTATION (census_bad, p->census_window = (SdCensusWindow) 42)
MUTATION (algorithm_bad, p->algorithm = (SdAlgorithm) 42)
MUTATION (levels_neg, p->levels = -1)
MUTATION (levels_big, p->levels = SD_MAX_BP_LEVELS + 1)
MUTATION (iterations_zero, p->iterations = 0)
MUTATION (iterations_big, p->iterations = SD_MAX_BP_ITERATIONS + 1)
MUTATION (data_weight_zero, p->data_weight = 0)
MUTATION (data_weight_nan, p->data_weight = 0.0f / 0.0f)
MUTATION (data_trunc_neg, p->data_trunc = -1)
MUTATION (disc_trunc_neg, p->disc_trunc = -0.5f)
MUTATION (sigma_big, p->sigma = 11)
MUTATION (precision_bad, p->bp_precision = (SdBpPrecision) 42)
MUTATION (tile_small, p->tile_size = SD_MIN_TILE_SIZE - 1)
MUTATION (tile_big, p->tile_size = SD_MAX_TILE_SIZE + 1)
MUTATION (outer_zero, p->outer_iterations = 0)
MUTATION (inner_zero, p->inner_iterations = 0)

int
main (void)
{
  SdParams p;
  char msg[256];
  sd_params_init (&p);
  SD_CHECK (sd_params_validate (&p, msg, sizeof (msg)), "defaults: %s", msg);

  expect_refused (ndisp_neg, "num-disparities");
  expect_refused (ndisp_big, "num-disparities");
  expect_refused (mind_neg, "min-disparity");
  expect_refused (mind_big, "min-disparity");
  expect_refused (rank_even, "rank-window");
  expect_refused (rank_small, "rank-window");
  expect_refused (rank_big, "rank-window");
  expect_refused (paths_6, "paths");
  expect_refused (p1_neg, "p1");
  expect_refused (p1_above_p2, "p1");
  expect_refused (p2_zero, "p2");
  expect_refused (p2_big, "p2");
  expect_refused (uniq_neg, "uniqueness");
  expect_refused (uniq_100, "uniqueness");
  expect_refused (lr_low, "lr-check");
  expect_refused (lr_big, "lr-check");
  expect_refused (prefilter_bad, "prefilter");
  expect_refused (cost_bad, "cost");
  expect_refused (census_bad, "census-window");
  expect_refused (algorithm_bad, "algorithm");
  expect_refused (levels_neg, "levels");
  expect_refused (levels_big, "levels");
  expect_refused (iterations_zero, "iterations");
  expect_refused (iterations_big, "iterations");
  expect_refused (data_weight_zero, "data-weight");
  expect_refused (data_weight_nan, "data-weight");
  expect_refused (data_trunc_neg, "data-trunc");
  expect_refused (disc_trunc_neg, "disc-trunc");
  expect_refused (sigma_big, "sigma");
  expect_refused (precision_bad, "bp-precision");
  expect_refused (tile_small, "tile-size");
  expect_refused (tile_big, "tile-size");
  expect_refused (outer_zero, "outer-iterations");
  expect_refused (inner_zero, "inner-iterations");

  /* the edges of each range are accepted */
  for (int n = 0; n <= SD_MAX_DISPARITIES; n++) {
    p.num_disparities = n;
    SD_CHECK (sd_params_validate (&p, msg, sizeof (msg)), "%d: %s", n, msg);
  }
  sd_params_init (&p);
  p.lr_check = SD_LR_CHECK_OFF;
  p.uniqueness = 0;
  p.p1 = 0;
  p.rank_window = 15;
  SD_CHECK (sd_params_validate (&p, msg, sizeof (msg)), "edges: %s", msg);

  /* the textual setter */
  sd_params_init (&p);
  SD_CHECK (sd_params_set_from_string (&p, "num-disparities", "100", msg,
          sizeof (msg)), "%s", msg);
  SD_CHECK_INT (p.num_disparities, 100);
  SD_CHECK (sd_params_set_from_string (&p, "prefilter", "median-rank", msg,
          sizeof (msg)), "%s", msg);
  SD_CHECK_INT (p.prefilter, SD_PREFILTER_MEDIAN_RANK);
  SD_CHECK (sd_params_set_from_string (&p, "census-window", "cs9x7", msg,
          sizeof (msg)), "%s", msg);
  SD_CHECK_INT (p.census_window, SD_CENSUS_CS9X7);
  SD_CHECK (!sd_params_fill_holes (&p), "auto fills holes for sgm");
  SD_CHECK (sd_params_set_from_string (&p, "fill-holes", "on", msg,
          sizeof (msg)), "%s", msg);
  SD_CHECK_INT (p.fill_holes, SD_FILL_HOLES_ON);
  SD_CHECK (sd_params_fill_holes (&p), "fill-holes on does not fill");
  SD_CHECK (sd_params_set_from_string (&p, "lr-check", "-1", msg,
          sizeof (msg)), "%s", msg);
  SD_CHECK_INT (p.lr_check, -1);
  SD_CHECK (sd_params_set_from_string (&p, "algorithm", "hbp", msg,
          sizeof (msg)), "%s", msg);
  SD_CHECK_INT (p.algorithm, SD_ALGORITHM_HBP);
  SD_CHECK (sd_params_set_from_string (&p, "fill-holes", "auto", msg,
          sizeof (msg)), "%s", msg);
  SD_CHECK (sd_params_fill_holes (&p), "auto does not fill holes for hbp");
  p.algorithm = SD_ALGORITHM_TILED_BP;
  SD_CHECK (sd_params_fill_holes (&p), "auto does not fill for tiled-bp");
  p.fill_holes = SD_FILL_HOLES_OFF;
  SD_CHECK (!sd_params_fill_holes (&p), "fill-holes off fills for tiled-bp");
  p.algorithm = SD_ALGORITHM_HBP;

  /* the automatic range: an eighth of the width in steps of 16, 16 to
   * 256, tiled-bp's at most 64; a count given is kept */
  sd_params_init (&p);
  SD_CHECK_INT (p.num_disparities, 0);
  const int widths[][3] = { {1, 16, 16}, {128, 16, 16}, {129, 32, 32},
  {384, 48, 48}, {450, 64, 64}, {640, 80, 64}, {1242, 160, 64},
  {1920, 240, 64}, {2048, 256, 64}, {3840, 256, 64}, {0x7fffffff, 256, 64}
  };
  for (size_t i = 0; i < sizeof (widths) / sizeof (widths[0]); i++) {
    p.algorithm = SD_ALGORITHM_SGM;
    SD_CHECK (sd_params_disparities (&p, widths[i][0]) == widths[i][1],
        "width %d: %d disparities, not %d", widths[i][0],
        sd_params_disparities (&p, widths[i][0]), widths[i][1]);
    p.algorithm = SD_ALGORITHM_TILED_BP;
    SD_CHECK (sd_params_disparities (&p, widths[i][0]) == widths[i][2],
        "tiled-bp, width %d: %d disparities, not %d", widths[i][0],
        sd_params_disparities (&p, widths[i][0]), widths[i][2]);
  }
  p.num_disparities = 100;
  SD_CHECK_INT (sd_params_disparities (&p, 16), 100);
  SD_CHECK_INT (sd_params_disparities (&p, 4000), 100);

  /* auto's left-right check is tight where holes are filled, a number is
   * kept as it is */
  sd_params_init (&p);
  SD_CHECK_INT (p.lr_check, SD_LR_CHECK_AUTO);
  SD_CHECK_INT (sd_params_lr_check (&p), SD_LR_CHECK_KEPT);
  p.fill_holes = SD_FILL_HOLES_ON;
  SD_CHECK_INT (sd_params_lr_check (&p), SD_LR_CHECK_FILLED);
  p.fill_holes = SD_FILL_HOLES_AUTO;
  p.algorithm = SD_ALGORITHM_HBP;
  SD_CHECK_INT (sd_params_lr_check (&p), SD_LR_CHECK_FILLED);
  SD_CHECK (sd_params_set_from_string (&p, "lr-check", "-2", msg,
          sizeof (msg)), "%s", msg);
  SD_CHECK_INT (p.lr_check, SD_LR_CHECK_AUTO);
  for (int v = -1; v <= 4; v++) {
    p.lr_check = v;
    SD_CHECK_INT (sd_params_lr_check (&p), v);
  }
  p.fill_holes = SD_FILL_HOLES_OFF;
  p.lr_check = 2;
  SD_CHECK_INT (sd_params_lr_check (&p), 2);
  SD_CHECK (sd_params_set_from_string (&p, "data-weight", "0.25", msg,
          sizeof (msg)), "%s", msg);
  SD_CHECK (p.data_weight == 0.25f, "data-weight %g", p.data_weight);
  SD_CHECK (sd_params_set_from_string (&p, "bp-precision", "half", msg,
          sizeof (msg)), "%s", msg);
  SD_CHECK_INT (p.bp_precision, SD_BP_PRECISION_HALF);
  SD_CHECK (!sd_params_set_from_string (&p, "sigma", "wide", msg,
          sizeof (msg)), "'wide' parsed as a number");
  SD_CHECK (!sd_params_set_from_string (&p, "paths", "eight", msg,
          sizeof (msg)), "'eight' parsed as an integer");
  SD_CHECK (strstr (msg, "paths") != NULL, "message: %s", msg);
  SD_CHECK (!sd_params_set_from_string (&p, "cost", "sad", msg,
          sizeof (msg)), "'sad' accepted as a cost");
  SD_CHECK (strstr (msg, "census") && strstr (msg, "ad"),
      "message does not list the choices: %s", msg);
  SD_CHECK (!sd_params_set_from_string (&p, "no-such-thing", "1", msg,
          sizeof (msg)), "unknown name accepted");
  SD_CHECK (!sd_params_set_from_string (&p, "median", "maybe", msg,
          sizeof (msg)), "'maybe' accepted as a boolean");
  return sd_test_exit ("test-params");
}
