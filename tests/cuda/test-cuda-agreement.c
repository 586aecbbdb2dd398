/* A backend against the reference backend, bit for bit: every pixel of
 * the output, for the parameter combinations, sizes and disparity ranges of
 * issue 4, on random textures, synthetic scenes and the Middlebury sets.
 * Built twice: test-cuda-agreement holds the CUDA backend to the reference,
 * test-cpu-agreement the (fast) cpu backend.
 *
 * usage: test-*-agreement [DATA_DIR] [--backend cuda|cpu] [--quick]
 *          [--part I/N]
 *   --backend the backend under test (default cuda)
 *
 * With --backend cpu, SD_CPU_ISA picks the instruction set's build under
 * test; the test skips where this processor does not run that build.
 *   --quick   small inputs only (for compute-sanitizer)
 *   --part    runs every N-th case starting at I (parallel runs)
 * Without a CUDA device it checks that the CUDA backend refuses with a
 * sentence and that auto picks the CPU, then exits 77 (skipped). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sd-cuda.h"
#include "fast/sd-fast.h"
#include "sd-engine.h"
#include "sd-eval.h"
#include "sd-rig.h"
#include "sd-synth.h"
#include "sd-test.h"

static int part_index = 0, part_count = 1, case_counter = 0, cases_run = 0;
static bool quick = false;

static bool
my_case (void)
{
  return case_counter++ % part_count == part_index;
}

typedef struct
{
  int width, height;
  SdPlane left, right;
  uint8_t *l, *r;
} Pair;

/* every matching method */
static const SdAlgorithm all_methods[] = { SD_ALGORITHM_SGM,
  SD_ALGORITHM_HBP, SD_ALGORITHM_TILED_BP
};

static uint32_t rng_state = 12345;
static uint32_t
rnd (void)
{
  uint32_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return rng_state = x;
}

/* A textured pair: the right image is the left shifted by shift pixels
 * (so the costs have a clear minimum), with a little noise, or an
 * independent texture when shift < 0. */
static void
pair_noise (Pair * p, int w, int h, int shift, uint32_t seed)
{
  p->width = w;
  p->height = h;
  p->l = malloc ((size_t) w * h);
  p->r = malloc ((size_t) w * h);
  sd_synth_noise (p->l, (size_t) w * h, seed);
  if (shift < 0) {
    sd_synth_noise (p->r, (size_t) w * h, seed * 7 + 1);
  } else {
    uint8_t *noise = malloc ((size_t) w * h);
    sd_synth_noise (noise, (size_t) w * h, seed * 3 + 2);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const int xs = x + shift < w ? x + shift : w - 1;
        int v = p->l[(size_t) y * w + xs] + (noise[(size_t) y * w + x] & 7) -
            3;
        p->r[(size_t) y * w + x] = (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
      }
    free (noise);
  }
  p->left = (SdPlane) {
  p->l, w, h, (size_t) w, SD_PIXEL_GRAY8};
  p->right = (SdPlane) {
  p->r, w, h, (size_t) w, SD_PIXEL_GRAY8};
}

static bool
pair_synth (Pair * p, int w, int h, int num_disparities, int dmin,
    uint32_t seed)
{
  const double lo = dmin + 1, hi = dmin + num_disparities * 0.8;
  const SdSynthLayer layers[] = {
    {0, 0, 0, 0, lo, (hi - lo) * 0.3 / (w > 1 ? w : 1), 0},
    {w / 5, h / 6, w / 2, h * 2 / 3 + 1, (lo + hi) / 2, 0, 0},
    {w / 2, h / 3, w * 9 / 10, h, hi, 0, 0},
  };
  SdSynthPair sp;
  if (!sd_synth_render (&sp, w, h, layers, 3, seed))
    return false;
  p->width = w;
  p->height = h;
  p->l = malloc ((size_t) w * h);
  p->r = malloc ((size_t) w * h);
  memcpy (p->l, sp.left, (size_t) w * h);
  memcpy (p->r, sp.right, (size_t) w * h);
  sd_synth_free (&sp);
  p->left = (SdPlane) {
  p->l, w, h, (size_t) w, SD_PIXEL_GRAY8};
  p->right = (SdPlane) {
  p->r, w, h, (size_t) w, SD_PIXEL_GRAY8};
  return true;
}

static void
pair_free (Pair * p)
{
  free (p->l);
  free (p->r);
}

static void
describe (const SdParams * p, char *buf, size_t size)
{
  snprintf (buf, size, "%s D=%d dmin=%d bright=%d pre=%s rank=%d cost=%s "
      "census=%s paths=%d p1=%d p2=%d adaptive=%d uniq=%d subpix=%d lr=%d "
      "median=%d fill=%d band-rows=%d", sd_enum_to_nick (sd_algorithm_entries,
          p->algorithm), p->num_disparities, p->min_disparity,
      p->match_brightness, sd_enum_to_nick (sd_prefilter_entries,
          p->prefilter), p->rank_window,
      sd_enum_to_nick (sd_cost_entries, p->cost),
      sd_enum_to_nick (sd_census_window_entries, p->census_window),
      p->paths, p->p1, p->p2, p->p2_adaptive, p->uniqueness, p->subpixel,
      p->lr_check, p->median, p->fill_holes, p->band_rows);
}

/* Runs both backends on one pair, the confidence included; returns true
 * when every pixel of both planes agrees. */
static bool
compare_on (const char *what, const SdPlane * left, const SdPlane * right,
    const SdParams * params, SdEngine * cpu, SdEngine * gpu)
{
  const int w = left->width, h = left->height;
  const size_t n = (size_t) w * h;
  SdParams p = *params;
  p.confidence = true;
  char desc[512];
  describe (&p, desc, sizeof (desc));
  cases_run++;
  uint16_t *a = malloc (sizeof (uint16_t) * n);
  uint16_t *b = malloc (sizeof (uint16_t) * n);
  uint8_t *ca = malloc (n), *cb = malloc (n);
  /* poison: every output pixel must be written */
  memset (a, 0xa5, sizeof (uint16_t) * n);
  memset (b, 0x5a, sizeof (uint16_t) * n);
  memset (ca, 0xa5, n);
  memset (cb, 0x5a, n);
  SdPlane oa = { a, w, h, sizeof (uint16_t) * w, SD_PIXEL_GRAY16 };
  SdPlane ob = { b, w, h, sizeof (uint16_t) * w, SD_PIXEL_GRAY16 };
  SdPlane pa = { ca, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  SdPlane pb = { cb, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  SdError err;
  bool ok = true;
  if (sd_engine_set_params (cpu, &p, &err) != SD_OK
      || sd_engine_set_params (gpu, &p, &err) != SD_OK) {
    SD_CHECK (0, "%s %dx%d %s: %s", what, w, h, desc, err.message);
    ok = false;
  } else if (sd_engine_process (cpu, left, right, &oa, &pa, &err) != SD_OK) {
    SD_CHECK (0, "%s: cpu: %s", what, err.message);
    ok = false;
  } else if (sd_engine_process (gpu, left, right, &ob, &pb, &err) != SD_OK) {
    SD_CHECK (0, "%s %dx%d %s: cuda: %s", what, w, h, desc, err.message);
    ok = false;
  } else {
    long bad = 0, bad_conf = 0, valid = 0;
    size_t first = 0;
    for (size_t i = 0; i < n; i++) {
      valid += a[i] != 0;
      if ((a[i] != b[i] || ca[i] != cb[i]) && !bad && !bad_conf)
        first = i;
      bad += a[i] != b[i];
      bad_conf += ca[i] != cb[i];
    }
    if (bad || bad_conf) {
      SD_CHECK (0, "%s %dx%d %s: %ld of %zu pixels differ, %ld of their "
          "confidences; first at (%zu, %zu): cpu %u (confidence %u) cuda "
          "%u (%u)", what, w, h, desc, bad, n, bad_conf, first % w,
          first / w, a[first], ca[first], b[first], cb[first]);
      ok = false;
    } else {
      printf ("ok   %s %dx%d %s (%.1f %% valid)\n", what, w, h, desc,
          100.0 * valid / ((double) w * h));
    }
  }
  free (a);
  free (b);
  free (ca);
  free (cb);
  return ok;
}

static void
compare_pair (const char *what, const Pair * pair, const SdParams * p,
    SdEngine * cpu, SdEngine * gpu)
{
  compare_on (what, &pair->left, &pair->right, p, cpu, gpu);
}

/* Undistort and rectify as the first stage: a distorted, rotated rig's raw
 * views at an odd size, under SGM and hbp (a map that reaches outside the
 * raw image reads its edge) and in bands, then the maps dropped again.
 * Small enough to run in every --part, so that each sanitizer run covers
 * it. */
static void
rectified (SdEngine * cpu, SdEngine * gpu)
{
  const int w = quick ? 61 : 333, h = quick ? 23 : 201;
  SdStereoCalib calib;
  SdRigScene scene;
  char msg[256];
  SdError err;
  sd_rig_make (&calib, w, h);
  sd_rig_scene_make (&scene, &calib);
  uint8_t *raw[2];
  for (int j = 0; j < 2; j++) {
    raw[j] = malloc ((size_t) w * h);
    sd_rig_render (&calib, &scene, j, raw[j], w, h);
  }
  SdPlane l = { raw[0], w, h, w, SD_PIXEL_GRAY8 };
  SdPlane r = { raw[1], w, h, w, SD_PIXEL_GRAY8 };
  SdRectification *rect = sd_rectification_new (&calib, w, h, msg,
      sizeof (msg));
  SD_CHECK (rect != NULL, "%s", msg);
  if (rect && sd_engine_set_rectification (cpu, rect, &err) == SD_OK
      && sd_engine_set_rectification (gpu, rect, &err) == SD_OK) {
    SdParams p;
    sd_params_init (&p);
    p.num_disparities = 48;
    compare_on ("rectified", &l, &r, &p, cpu, gpu);
    p.algorithm = SD_ALGORITHM_HBP;
    compare_on ("rectified", &l, &r, &p, cpu, gpu);
    /* the whole frame rectified, then cut into bands */
    p.algorithm = SD_ALGORITHM_SGM;
    p.band_rows = h / 3;
    compare_on ("rectified", &l, &r, &p, cpu, gpu);
  } else {
    SD_CHECK (0, "setting the rectification: %s", err.message);
  }
  SD_CHECK (sd_engine_set_rectification (cpu, NULL, &err) == SD_OK
      && sd_engine_set_rectification (gpu, NULL, &err) == SD_OK, "%s",
      err.message);
  sd_rectification_free (rect);
  free (raw[0]);
  free (raw[1]);
}

/* Frames cut into bands (sd-band.h): the same band_rows on both backends,
 * under each method; bands that leave a short last one, bands whose
 * overlap makes each as tall as the frame (all of them at the quick size),
 * and (SGM only: 300 bands) one row a band.  SGM's bands are exact (the
 * CPU computes the whole frame): its paths carried across band edges in
 * each kind of volume (8-bit paths, 4 of them, the 16-bit sum of a large
 * P2; the layouts of one and two slots a lane; wide() has the 32-lane
 * one), with the adaptive P2, whose first step in a band reads the guide
 * row beside it, and uniqueness. */
static void
band_params (SdParams * p, int rows)
{
  sd_params_init (p);
  p->num_disparities = 48;
  p->min_disparity = 2;
  p->band_rows = rows;
}

static void
banded (SdEngine * cpu, SdEngine * gpu)
{
  const int w = quick ? 64 : 160, h = quick ? 150 : 300;
  Pair pair;
  if (!pair_synth (&pair, w, h, 48, 2, 7))
    pair_noise (&pair, w, h, 12, 7);
  static const int rows[] = { 37, 100, 200, 1 };
  for (size_t i = 0; i < (quick ? 2 : 4); i++)
    for (size_t m = 0; m < (rows[i] == 1 ? 1 : 3); m++) {
      if (!my_case ())
        continue;
      SdParams p;
      band_params (&p, rows[i]);
      p.algorithm = all_methods[m];
      compare_pair ("bands", &pair, &p, cpu, gpu);
    }
  for (int v = 0; v < 6; v++)
    for (size_t i = 0; i < (quick ? 1 : 2); i++) {
      if (!my_case ())
        continue;
      SdParams p;
      band_params (&p, rows[i * 3]);
      p.confidence = true;
      if (v == 0)
        p.paths = 4;
      else if (v == 1)
        p.p2 = 300;
      else if (v == 2)
        p.p2_adaptive = SD_P2_ADAPTIVE_ON;
      else if (v == 3)
        p.uniqueness = 5;
      else
        p.num_disparities = v == 4 ? 16 : 32;   /* one and two slots a lane */
      compare_pair ("sgm bands", &pair, &p, cpu, gpu);
    }
  pair_free (&pair);
}

/* The pair whole, then in bands of a third of its rows where it has more
 * than a chunk of them. */
static void
compare_whole_and_bands (const char *whole, const char *bands,
    const Pair * pair, SdParams * p, SdEngine * cpu, SdEngine * gpu)
{
  p->band_rows = 0;
  compare_pair (whole, pair, p, cpu, gpu);
  if (pair->height > 8) {
    p->band_rows = pair->height / 3;
    compare_pair (bands, pair, p, cpu, gpu);
  }
}

/* Frames at least 2560 wide with more than 128 disparities, where the
 * CUDA backend aggregates the six directions that move between rows a row
 * at a time in vertical strips (cuda/sd-cuda-sgm-rows.cu): widths that end
 * in a full strip, a strip narrower than a chunk and a wider one; heights
 * of one row, one chunk, a chunk and one row, and more (61 rows, on the
 * widest only: the chunk of the down pass that holds the middle row, where
 * the two passes hand their sums over, waits for three of the up pass's);
 * a scene and noise; a minimum disparity, the confidence and uniqueness,
 * the adaptive P2, and bands. */
static void
wide (SdEngine * cpu, SdEngine * gpu)
{
  static const int widths[] = { 2560, 2564, 2603 };
  static const int heights[] = { 1, 8, 9, 27, 61 };
  for (size_t i = 0; i < 3; i++)
    for (size_t j = 0; j < 5; j++) {
      if ((quick && j >= 3) || (j == 4 && i != 2) || !my_case ())
        continue;
      const int w = widths[i], h = heights[j];
      const int D = i == 1 ? 160 : 256, dmin = i == 2 ? 5 : 0;
      Pair pair;
      if (j % 2 == 0 || !pair_synth (&pair, w, h, D, dmin, 40 + j))
        pair_noise (&pair, w, h, D / 3 + dmin, 40 + j);
      SdParams p;
      sd_params_init (&p);
      p.num_disparities = D;
      p.min_disparity = dmin;
      compare_pair ("wide", &pair, &p, cpu, gpu);
      p.confidence = true;
      p.uniqueness = 5;
      compare_whole_and_bands ("wide confidence", "wide bands", &pair, &p,
          cpu, gpu);
      /* the adaptive P2 (an instance of the rows kernel of its own), whose
       * steps read the guide rows beside a band */
      p.p2_adaptive = SD_P2_ADAPTIVE_ON;
      compare_whole_and_bands ("wide adaptive P2", "wide adaptive P2 bands",
          &pair, &p, cpu, gpu);
      pair_free (&pair);
    }
}

/* Hole filling removes speckles (sd-speckle.h) over the whole frame: on
 * pairs large enough that segments of a few pixels are speckles, one
 * unrelated noise (nearly every pixel in a segment of its own) and one
 * scene, whole and in bands, under each method; small enough at the quick
 * size to run under the sanitizers. */
static void
speckled (SdEngine * cpu, SdEngine * gpu)
{
  const int w = quick ? 120 : 320, h = quick ? 80 : 200;
  Pair pairs[2];
  pair_noise (&pairs[0], w, h, -1, 21);
  if (!pair_synth (&pairs[1], w, h, 32, 0, 22))
    pair_noise (&pairs[1], w, h, 9, 22);
  for (int i = 0; i < 2; i++)
    for (size_t m = 0; m < 3; m++)
      for (int bands = 0; bands < 2; bands++) {
        if (!my_case ())
          continue;
        SdParams p;
        sd_params_init (&p);
        p.num_disparities = 32;
        p.algorithm = all_methods[m];
        p.fill_holes = SD_FILL_HOLES_ON;
        p.lr_check = 0;
        p.median = false;
        p.band_rows = bands ? h / 3 : 0;
        compare_pair ("speckles", &pairs[i], &p, cpu, gpu);
      }
  pair_free (&pairs[0]);
  pair_free (&pairs[1]);
}

/* Views of unequal brightness (the right one darker, on another response
 * curve), so that brightness matching maps most levels elsewhere: every
 * method, whole and in bands, with the stage on and off, and on with the
 * absolute difference after a median. */
static void
unequal_brightness (SdEngine * cpu, SdEngine * gpu)
{
  const int w = quick ? 90 : 333, h = quick ? 40 : 121;
  Pair pair;
  if (!pair_synth (&pair, w, h, 48, 0, 31))
    pair_noise (&pair, w, h, 13, 31);
  for (size_t i = 0; i < (size_t) w * h; i++)
    pair.r[i] = (uint8_t) (pair.r[i] * pair.r[i] / 400 + 9);
  for (size_t m = 0; m < 3; m++)
    for (int variant = 0; variant < 4; variant++) {
      if (!my_case ())
        continue;
      SdParams p;
      sd_params_init (&p);
      p.num_disparities = 48;
      p.algorithm = all_methods[m];
      p.match_brightness = variant != 2;
      p.band_rows = variant == 1 ? h / 3 : 0;
      if (variant == 3) {
        p.cost = SD_COST_AD;
        p.prefilter = SD_PREFILTER_MEDIAN3;
      }
      compare_pair ("unequal brightness", &pair, &p, cpu, gpu);
    }
  pair_free (&pair);
}

/* The automatic disparity range (num-disparities 0), which each engine
 * resolves from the pair's width: every method at widths whose ranges
 * differ (16, 48 and 96; tiled-bp's stops at 64), one after the other
 * through the same engines. */
static void
automatic_range (SdEngine * cpu, SdEngine * gpu)
{
  static const int widths[] = { 97, 301, 700 };
  for (size_t m = 0; m < 3; m++)
    for (size_t i = 0; i < sizeof (widths) / sizeof (widths[0]); i++) {
      if (!my_case ())
        continue;
      const int w = widths[i], h = quick ? 9 : 23;
      Pair pair;
      if (!pair_synth (&pair, w, h, w / 8, 0, 41 + i))
        pair_noise (&pair, w, h, w / 20, 41 + i);
      SdParams p;
      sd_params_init (&p);
      p.algorithm = all_methods[m];
      compare_pair ("automatic range", &pair, &p, cpu, gpu);
      pair_free (&pair);
    }
}

/* A right view two rows lower (align-rows, on by default): each engine
 * measures the offset on the host and remaps through maps that move it
 * back, for every method, whole and in bands.  (Whole rows: the synthetic
 * texture changes from row to row, so a view interpolated between rows
 * matches too few patches to measure.) */
static void
moved_rows (SdEngine * cpu, SdEngine * gpu)
{
  const int w = quick ? 240 : 333, h = quick ? 100 : 121;
  Pair pair;
  if (!pair_synth (&pair, w, h, 32, 0, 51))
    pair_noise (&pair, w, h, 9, 51);
  for (int y = h - 1; y >= 2; y--)
    memcpy (pair.r + (size_t) y * w, pair.r + (size_t) (y - 2) * w, w);
  for (size_t m = 0; m < 3; m++)
    for (int banded_run = 0; banded_run < 2; banded_run++) {
      if (!my_case ())
        continue;
      SdParams p;
      sd_params_init (&p);
      p.num_disparities = 32;
      p.algorithm = all_methods[m];
      p.band_rows = banded_run ? h / 3 : 0;
      compare_pair ("rows 2 lower", &pair, &p, cpu, gpu);
      SD_CHECK (sd_engine_rows_moved (cpu) && sd_engine_rows_moved (gpu),
          "rows 2 lower: the rows were not moved (measured %+.2f, %+.2f)",
          sd_engine_row_offset (cpu).offset,
          sd_engine_row_offset (gpu).offset);
    }
  pair_free (&pair);
}

/* One parameter changed at a time from the defaults, on one input. */
static void
sweep_params (const char *what, const Pair * pair, int D, int dmin,
    SdEngine * cpu, SdEngine * gpu)
{
  SdParams base;
  sd_params_init (&base);
  base.num_disparities = D;
  base.min_disparity = dmin;
  SdParams p;
#define VARY(stmt) do { if (my_case ()) { p = base; stmt; \
        compare_pair (what, pair, &p, cpu, gpu); } } while (0)
  VARY ((void) 0);
  VARY (p.match_brightness = true);
  VARY ((p.match_brightness = true, p.cost = SD_COST_AD,
          p.prefilter = SD_PREFILTER_MEDIAN5));
  VARY (p.prefilter = SD_PREFILTER_MEDIAN3);
  VARY (p.prefilter = SD_PREFILTER_MEDIAN5);
  VARY (p.prefilter = SD_PREFILTER_RANK);
  VARY ((p.prefilter = SD_PREFILTER_RANK, p.rank_window = 5));
  VARY ((p.prefilter = SD_PREFILTER_RANK, p.rank_window = 15));
  VARY (p.prefilter = SD_PREFILTER_MEDIAN_RANK);
  VARY (p.census_window = SD_CENSUS_5X5);
  VARY (p.census_window = SD_CENSUS_CS9X7);
  VARY (p.cost = SD_COST_AD);
  VARY ((p.cost = SD_COST_AD, p.prefilter = SD_PREFILTER_RANK));
  VARY (p.cost = SD_COST_CENSUS);
  VARY ((p.cost = SD_COST_CENSUS, p.census_window = SD_CENSUS_5X5));
  VARY ((p.cost = SD_COST_CENSUS_AD, p.census_window = SD_CENSUS_CS9X7,
          p.prefilter = SD_PREFILTER_RANK));
  VARY (p.paths = 4);
  VARY ((p.paths = 4, p.cost = SD_COST_AD));
  VARY (p.p2_adaptive = SD_P2_ADAPTIVE_ON);
  VARY ((p.p2_adaptive = SD_P2_ADAPTIVE_ON, p.p2 = 190, p.p1 = 10));
  VARY ((p.p2 = 300, p.p1 = 20));     /* 16-bit path volumes */
  VARY ((p.p2 = 4095, p.p1 = 4095, p.p2_adaptive = SD_P2_ADAPTIVE_ON));
  VARY ((p.p2 = 4095, p.p1 = 0));
  VARY ((p.p1 = 0, p.p2 = 1));
  VARY (p.uniqueness = 0);
  VARY (p.uniqueness = 50);
  VARY (p.uniqueness = 99);
  VARY (p.subpixel = false);
  VARY (p.lr_check = SD_LR_CHECK_OFF);
  VARY (p.lr_check = 0);
  VARY (p.lr_check = 3);
  VARY ((p.lr_check = 3, p.fill_holes = SD_FILL_HOLES_ON));
  VARY (p.lr_check = 255);
  VARY (p.median = false);
  VARY (p.fill_holes = SD_FILL_HOLES_ON);
  /* the guided median is on by default: off, alone and with the fill,
   * and on without the 3x3 median and subpixel */
  VARY (p.guided_median = false);
  VARY ((p.guided_median = false, p.fill_holes = SD_FILL_HOLES_ON));
  VARY ((p.median = false, p.subpixel = false));
  VARY ((p.fill_holes = SD_FILL_HOLES_ON, p.median = false, p.lr_check = 0));
  VARY ((p.median = false, p.lr_check = SD_LR_CHECK_OFF, p.uniqueness = 0,
          p.subpixel = false));
  /* the cpu backend's thread count changes who computes what, not what:
   * with more than two threads the sweeps run as wavefronts of column
   * ranges, more of them than this machine may have cores */
  VARY (p.threads = 1);
  VARY (p.threads = 3);
  VARY (p.threads = 7);
  VARY (p.threads = 16);
  VARY ((p.threads = 5, p.paths = 4));
  VARY ((p.threads = 8, p.p2_adaptive = SD_P2_ADAPTIVE_ON));
  /* depth output: a rig's scale, one that clamps near (1 mm) and one that
   * clamps far (65535), with and without hole filling */
  VARY ((p.output = SD_OUTPUT_DEPTH, p.focal_length = 700.5f,
          p.baseline = 120.25f));
  VARY ((p.output = SD_OUTPUT_DEPTH, p.focal_length = 0.5f,
          p.baseline = 1.0f, p.fill_holes = SD_FILL_HOLES_ON));
  VARY ((p.output = SD_OUTPUT_DEPTH, p.focal_length = 5000.0f,
          p.baseline = 600.0f, p.fill_holes = SD_FILL_HOLES_ON));
#undef VARY
}

/* Parameters drawn at random, on random small sizes. */
static void
fuzz (int n, SdEngine * cpu, SdEngine * gpu)
{
  static const int ds[] = { 1, 2, 16, 31, 33, 48, 64, 65, 100, 128, 129,
    192, 256
  };
  for (int i = 0; i < n; i++) {
    const uint32_t seed = rnd ();
    if (!my_case ())
      continue;
    uint32_t saved = rng_state;
    rng_state = seed | 1;
    SdParams p;
    sd_params_init (&p);
    p.num_disparities = ds[rnd () % (sizeof (ds) / sizeof (ds[0]))];
    p.min_disparity = rnd () % 4 == 0 ? (int) (rnd () % 40) : 0;
    p.prefilter = (SdPrefilter) (rnd () % 5);
    p.rank_window = 5 + 2 * (rnd () % 6);
    p.cost = (SdCost) (rnd () % 3);
    p.census_window = (SdCensusWindow) (rnd () % 3);
    p.paths = rnd () % 2 ? 8 : 4;
    p.p2 = 1 + rnd () % (rnd () % 2 ? 250 : 4095);
    p.p1 = rnd () % (p.p2 + 1);
    p.p2_adaptive = (SdP2Adaptive) (rnd () % 3);
    p.uniqueness = rnd () % 3 == 0 ? 0 : (int) (rnd () % 100);
    p.subpixel = rnd () % 4 != 0;
    p.lr_check = rnd () % 4 == 0 ? SD_LR_CHECK_OFF : rnd () % 4 == 0 ?
        SD_LR_CHECK_AUTO : (int) (rnd () % 5);
    p.median = rnd () % 2;
    p.fill_holes = rnd () % 3 == 0 ? SD_FILL_HOLES_ON : SD_FILL_HOLES_OFF;
    p.guided_median = rnd () % 2;
    const int w = 1 + rnd () % (quick ? 80 : 300);
    const int h = 1 + rnd () % (quick ? 20 : 60);
    Pair pair;
    if (rnd () % 2)
      pair_noise (&pair, w, h, (int) (rnd () % 40) - 5, seed);
    else if (!pair_synth (&pair, w, h, p.num_disparities, p.min_disparity,
            seed))
      pair_noise (&pair, w, h, 7, seed);
    p.threads = 1 + rnd () % 12;
    p.match_brightness = rnd () % 2;
    compare_pair ("fuzz", &pair, &p, cpu, gpu);
    pair_free (&pair);
    rng_state = saved;
  }
}

/* Input formats other than GRAY8, with padded strides. */
static void
formats (SdEngine * cpu, SdEngine * gpu)
{
  static const SdPixelFormat fmts[] = { SD_PIXEL_GRAY16, SD_PIXEL_RGB,
    SD_PIXEL_BGR, SD_PIXEL_RGBX, SD_PIXEL_BGRX, SD_PIXEL_XRGB, SD_PIXEL_XBGR,
    SD_PIXEL_YUYV, SD_PIXEL_UYVY, SD_PIXEL_GRAY16_LE, SD_PIXEL_GRAY10_LE,
    SD_PIXEL_GRAY12_LE, SD_PIXEL_AYUV, SD_PIXEL_VUYA, SD_PIXEL_GRAY8
  };
  const int w = 75, h = 33;
  for (size_t f = 0; f < sizeof (fmts) / sizeof (fmts[0]); f++) {
    if (!my_case ())
      continue;
    const int bpp = sd_pixel_layout (fmts[f])->bytes_per_pixel;
    const size_t stride = (size_t) w * bpp + 13;
    uint8_t *l = malloc (stride * h), *r = malloc (stride * h);
    sd_synth_noise (l, stride * h, 11 + f);
    for (int y = 0; y < h; y++)
      for (size_t x = 0; x < stride; x++) {
        const size_t xs = x + 5 * bpp < stride ? x + 5 * bpp : x;
        r[y * stride + x] = l[y * stride + xs];
      }
    SdPlane pl = { l, w, h, stride, fmts[f] };
    SdPlane pr = { r, w, h, stride, fmts[f] };
    SdParams p;
    sd_params_init (&p);
    p.num_disparities = 32;
    char what[64];
    snprintf (what, sizeof (what), "format %d", (int) fmts[f]);
    compare_on (what, &pl, &pr, &p, cpu, gpu);
    free (l);
    free (r);
  }
}

#ifdef SD_HAVE_CUDA
/* Two engines of different sizes, used in turn. */
static void
interleaved (SdEngine * cpu)
{
  if (!my_case ())
    return;
  SdParams pa, pb;
  sd_params_init (&pa);
  sd_params_init (&pb);
  pa.num_disparities = 64;
  pb.num_disparities = 128;
  pb.paths = 4;
  pb.fill_holes = SD_FILL_HOLES_ON;
  SdError err;
  SdEngine *a = sd_engine_new ("cuda", 0, &pa, &err);
  SdEngine *b = sd_engine_new ("cuda", 0, &pb, &err);
  SD_CHECK (a && b, "%s", err.message);
  if (!a || !b)
    return;
  Pair x, y;
  pair_noise (&x, 97, 61, 9, 5);
  if (!pair_synth (&y, 160, 90, 128, 0, 6))
    pair_noise (&y, 160, 90, 20, 6);
  for (int i = 0; i < 3; i++) {
    compare_pair ("interleaved A", &x, &pa, cpu, a);
    compare_pair ("interleaved B", &y, &pb, cpu, b);
  }
  sd_engine_free (a);
  sd_engine_free (b);
  pair_free (&x);
  pair_free (&y);
}

/* The device-memory entry point gives what the engine gives. */
static void
device_entry (SdEngine * cpu)
{
  if (!my_case ())
    return;
  SdError err;
  SdCudaPipeline *pl = sd_cuda_pipeline_new (0, &err);
  SD_CHECK (pl != NULL, "%s", err.message);
  if (!pl)
    return;
  Pair x;
  pair_noise (&x, 131, 47, 12, 77);
  SdParams p;
  sd_params_init (&p);
  p.num_disparities = 48;
  SdCudaTimings t;
  SD_CHECK (sd_cuda_pipeline_time (pl, &p, &x.left, &x.right, 1, 3, &t,
          &err) == SD_OK, "%s", err.message);
  SD_CHECK (t.device_median > 0 && t.e2e_median > 0, "timings %f %f",
      t.device_median, t.e2e_median);
  /* after timing, the same pipeline still agrees */
  SdParams q = p;
  q.num_disparities = 64;
  SdEngine *gpu = sd_engine_new ("cuda", 0, &q, &err);
  if (gpu) {
    compare_pair ("after timing", &x, &q, cpu, gpu);
    sd_engine_free (gpu);
  }
  sd_cuda_pipeline_free (pl);
  pair_free (&x);
}

/* A pipeline bounded by max-device-memory cuts a frame that does not fit
 * into bands of its own choosing, and the CPU given those band rows gives
 * the same bits; a bound too small for any band is refused. */
static void
bounded_memory (SdEngine * cpu)
{
  if (!my_case ())
    return;
  const int w = 640, h = 480;
  Pair x;
  if (!pair_synth (&x, w, h, 128, 0, 21))
    pair_noise (&x, w, h, 40, 21);
  SdParams p;
  sd_params_init (&p);
  p.num_disparities = 128;
  p.confidence = true;
  p.max_device_memory = 200;    /* the whole frame needs about 350 MB */
  SdError err;
  SdEngine *gpu = sd_engine_new ("cuda", 0, &p, &err);
  const size_t n = (size_t) w * h;
  uint16_t *a = malloc (n * 2), *b = malloc (n * 2);
  uint8_t *ca = malloc (n), *cb = malloc (n);
  SdPlane oa = { a, w, h, (size_t) w * 2, SD_PIXEL_GRAY16 };
  SdPlane ob = { b, w, h, (size_t) w * 2, SD_PIXEL_GRAY16 };
  SdPlane pa = { ca, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  SdPlane pb = { cb, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  SD_CHECK (gpu && sd_engine_process (gpu, &x.left, &x.right, &ob, &pb,
          &err) == SD_OK, "%s", err.message);
  const int rows = gpu ? sd_engine_band_rows (gpu) : 0;
  SD_CHECK (rows > 0 && rows < h, "a 200 MB bound chose %d band rows", rows);
  SdParams q = p;
  q.band_rows = rows;
  SD_CHECK (sd_engine_set_params (cpu, &q, &err) == SD_OK
      && sd_engine_process (cpu, &x.left, &x.right, &oa, &pa, &err) == SD_OK,
      "%s", err.message);
  SD_CHECK (!memcmp (a, b, n * 2) && !memcmp (ca, cb, n),
      "bands of %d rows chosen by the cuda backend differ from the cpu's",
      rows);
  cases_run++;
  printf ("ok   bounded memory: 200 MB gives bands of %d rows\n", rows);
  p.max_device_memory = 1;
  SD_CHECK (gpu && sd_engine_set_params (gpu, &p, &err) == SD_OK, "%s",
      err.message);
  SD_CHECK (gpu && sd_engine_process (gpu, &x.left, &x.right, &ob, NULL,
          &err) == SD_ERROR_OUT_OF_MEMORY
      && strstr (err.message, "max-device-memory"),
      "a 1 MB bound: %s", err.message);
  sd_engine_free (gpu);
  free (a);
  free (b);
  free (ca);
  free (cb);
  pair_free (&x);
}
#endif

/* Every shared set with three SGM settings and, where the backend under
 * test holds BP to the reference bit for bit (the cpu backend), hbp and
 * tiled-bp with their defaults. */
static void
middlebury (const char *data_dir, SdEngine * cpu, SdEngine * gpu,
    bool with_bp)
{
  static const char *sets[] = { "mb2001_barn1", "mb2001_barn2",
    "mb2001_bull", "mb2001_map", "mb2001_poster", "mb2001_sawtooth",
    "mb2001_tsukuba", "mb2001_venus", "mb2003_cones_half",
    "mb2003_cones_quarter", "mb2003_teddy_half", "mb2003_teddy_quarter"
  };
  int found = 0;
  for (size_t i = 0; i < sizeof (sets) / sizeof (sets[0]); i++) {
    char msg[256];
    for (int variant = 0; variant < (with_bp ? 5 : 3); variant++) {
      if (!my_case ())
        continue;
      SdStereoSet set;
      memset (&set, 0, sizeof (set));
      if (!sd_stereo_set_open (&set, data_dir, sets[i], msg,
              sizeof (msg))) {
        printf ("skip %s: %s\n", sets[i], msg);
        continue;
      }
      found++;
      SdParams p;
      sd_params_init (&p);
      p.num_disparities = set.suggested_disparities;
      if (variant == 1) {
        p.paths = 4;
        p.prefilter = SD_PREFILTER_MEDIAN_RANK;
        p.p2_adaptive = SD_P2_ADAPTIVE_ON;
        p.fill_holes = SD_FILL_HOLES_ON;
      } else if (variant == 2) {
        p.cost = SD_COST_AD;
        p.num_disparities = set.suggested_disparities + 17;
        p.min_disparity = 2;
        p.lr_check = 2;
      } else if (variant == 3) {
        p.algorithm = SD_ALGORITHM_HBP;
      } else if (variant == 4) {
        p.algorithm = SD_ALGORITHM_TILED_BP;
      }
      compare_on (set.name, &set.left->plane, &set.right->plane, &p, cpu,
          gpu);
      sd_stereo_set_free (&set);
    }
  }
  if (!found)
    printf ("note: no Middlebury set found under %s\n", data_dir);
}

int
main (int argc, char **argv)
{
  const char *data_dir = NULL;
  const char *under_test = "cuda";
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--quick"))
      quick = true;
    else if (!strcmp (argv[i], "--backend") && i + 1 < argc)
      under_test = argv[++i];
    else if (!strcmp (argv[i], "--part") && i + 1 < argc) {
      if (sscanf (argv[++i], "%d/%d", &part_index, &part_count) != 2
          || part_count < 1 || part_index < 0 || part_index >= part_count) {
        fprintf (stderr, "--part wants I/N\n");
        return 2;
      }
    } else
      data_dir = argv[i];
  }

  SdParams p;
  sd_params_init (&p);
  SdError err;
  SdEngine *gpu = sd_engine_new (under_test, 0, &p, &err);
  if (!gpu) {
    /* no device here: the refusal must say why, auto must pick the CPU */
    SD_CHECK (err.status == SD_ERROR_NO_DEVICE, "status %d", err.status);
    SD_CHECK (strstr (err.message, "CUDA") != NULL, "message: %s",
        err.message);
    SdEngine *any = sd_engine_new ("auto", 0, &p, &err);
    SD_CHECK (any && !strcmp (sd_engine_backend_name (any), "cpu"),
        "auto did not pick the CPU");
    sd_engine_free (any);
    printf ("no CUDA device (%s): skipped\n", err.message);
    return sd_test_failures ? 1 : SD_TEST_SKIP;
  }
  if (!strcmp (under_test, "cpu")) {
    const char *isa = sd_fast_pick_stages ()->isa;
    const char *wanted = getenv ("SD_CPU_ISA");
    if (wanted && strcmp (wanted, isa)) {
      printf ("this processor does not run the %s build: skipped\n", wanted);
      sd_engine_free (gpu);
      return SD_TEST_SKIP;
    }
    printf ("cpu backend: the %s build\n", isa);
  }
  SdEngine *cpu = sd_engine_new ("reference", 0, &p, &err);

  /* every disparity count of the issue, on odd, narrow and flat sizes */
  static const int ds[] = { 1, 16, 48, 64, 100, 128, 192, 256 };
  static const int sizes[][2] = { {97, 61}, {40, 23}, {128, 1}, {1, 9},
  {301, 17}
  };
  for (size_t d = 0; d < sizeof (ds) / sizeof (ds[0]); d++) {
    for (size_t s = 0; s < sizeof (sizes) / sizeof (sizes[0]); s++) {
      for (int dmin = 0; dmin <= 5; dmin += 5) {
        if (!my_case ())
          continue;
        SdParams q;
        sd_params_init (&q);
        q.num_disparities = ds[d];
        q.min_disparity = dmin;
        Pair pair;
        const int w = sizes[s][0], h = sizes[s][1];
        if (s % 2 == 0)
          pair_noise (&pair, w, h, ds[d] / 3 + dmin, 100 + s);
        else if (!pair_synth (&pair, w, h, ds[d], dmin, 100 + s))
          pair_noise (&pair, w, h, 3, 100 + s);
        compare_pair ("sizes", &pair, &q, cpu, gpu);
        q.paths = 4;
        q.p2 = 1000;
        compare_pair ("sizes 4 paths 16-bit", &pair, &q, cpu, gpu);
        pair_free (&pair);
      }
    }
  }

  /* every parameter, one at a time, on textures and scenes */
  {
    Pair a, b, c;
    pair_noise (&a, quick ? 41 : 97, quick ? 13 : 61, 11, 1);
    sweep_params ("noise D64", &a, 64, 0, cpu, gpu);
    if (!pair_synth (&b, quick ? 45 : 150, quick ? 12 : 70, 100, 3, 2))
      pair_noise (&b, 150, 70, 30, 2);
    sweep_params ("scene D100 dmin3", &b, 100, 3, cpu, gpu);
    pair_noise (&c, quick ? 50 : 210, quick ? 9 : 33, -1, 3);
    sweep_params ("random D256", &c, 256, 0, cpu, gpu);
    sweep_params ("random D16 dmin40", &c, 16, 40, cpu, gpu);
    pair_free (&a);
    pair_free (&b);
    pair_free (&c);
  }
  fuzz (quick ? 20 : 150, cpu, gpu);
  formats (cpu, gpu);
  rectified (cpu, gpu);
  banded (cpu, gpu);
  wide (cpu, gpu);
  speckled (cpu, gpu);
  unequal_brightness (cpu, gpu);
  automatic_range (cpu, gpu);
  moved_rows (cpu, gpu);
#ifdef SD_HAVE_CUDA
  if (!strcmp (under_test, "cuda")) {
    interleaved (cpu);
    device_entry (cpu);
    if (!quick)
      bounded_memory (cpu);
  }
#endif
  if (!quick && data_dir)
    middlebury (data_dir, cpu, gpu, !strcmp (under_test, "cpu"));

  sd_engine_free (cpu);
  sd_engine_free (gpu);
  printf ("%d comparisons\n", cases_run);
  return sd_test_exit (!strcmp (under_test, "cuda") ?
      "test-cuda-agreement" : "test-cpu-agreement");
}
