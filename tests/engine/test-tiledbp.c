/* Tiled belief propagation on the CPU: hand-worked visits, a BP-M
 * computation written out, the boundary exchange between tiles, the
 * wavefront schedule a GPU runs, exactness on chains (1-pixel-high images,
 * tiles that do not divide the width), synthetic scenes, edge sizes, and
 * the MEMOCODE 2013 measure on Tsukuba plus bad>1 on the Middlebury sets
 * (argv[1] is the data folder; those checks skip without it). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cpu/sd-cpu.h"
#include "fast/sd-fast.h"
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

/* Tiled BP's beliefs for data costs, through the public entry point. */
static float *
tiled_beliefs (const SdParams * p, const float *data, int w, int h)
{
  const size_t n = (size_t) w * h * p->num_disparities;
  float *belief = malloc (sizeof (float) * n);
  void *ws = malloc (sd_cpu_tiled_bp_workspace_bytes (p, w, h));
  sd_cpu_tiled_bp (p, data, belief, ws, w, h);
  free (ws);
  return belief;
}

/* Small-range parameters for hand-worked cases: the cap of the smoothness
 * term is out of reach with two labels. */
static void
hand_params (SdParams * p, int num_disparities, int tile_size)
{
  sd_params_init (p);
  p->algorithm = SD_ALGORITHM_TILED_BP;
  p->num_disparities = num_disparities;
  p->disc_trunc = 10;
  p->tile_size = tile_size;
  p->outer_iterations = 1;
  p->inner_iterations = 1;
}

static void
test_one_tile_by_hand (void)
{
  /* 3x1 pixels, two labels, one tile.  Right sweep: p0 [0 4] sends [0 1];
   * p1 sends [3 1] + [0 1] = [3 2] -> [1 0] (less its smallest entry).
   * Left sweep: p2 [2 2] sends [0 0]; p1 sends [3 1] -> [2 1] -> [1 0].
   * Beliefs: p0 [0 4] + [1 0]; p1 [3 1] + [0 0] + [0 1]; p2 [2 2] + [1 0].
   * The reverse pass revisits the one tile from scratch: the same again. */
  SdParams p;
  hand_params (&p, 2, 4);
  const float data[6] = { 0, 4, 3, 1, 2, 2 };
  float *belief = tiled_beliefs (&p, data, 3, 1);
  check_floats (belief, (const float[6]) {
      1, 4, 3, 2, 3, 2}, 6, "one-tile beliefs");
  free (belief);
}

static void
test_boundary_by_hand (void)
{
  /* 5x1 pixels in tiles of 4: pixels 0..3 without preference, pixel 4
   * (its own tile) [0 4].  Raster pass: tile 0 sees nothing yet and sends
   * [0 0] right; tile 1 sends [0 4] -> [0 1] left.  Reverse pass: tile 1
   * reads tile 0's [0 0]: belief [0 4]; tile 0 reads [0 1] into pixel 3,
   * and its left sweep passes it on unchanged (min-convolving [0 1]
   * changes nothing), so every belief of tile 0 is [0 1]. */
  SdParams p;
  hand_params (&p, 2, 4);
  const float data[10] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 4 };
  float *belief = tiled_beliefs (&p, data, 5, 1);
  check_floats (belief, (const float[10]) {
      0, 1, 0, 1, 0, 1, 0, 1, 0, 4}, 10, "two-tile beliefs");
  free (belief);
}

/* A fixed-point message by hand: h = [5 0 3 9] (units of 1.0) min-convolves
 * to [1 0 1 2], the cap 2.5 above the smallest entry leaves it alone, and
 * the smallest entry is already 0; with the cap at 0.5 it is [0.5 0 0.5
 * 0.5].  The inputs add: data [2 0 1 4] and messages [1 0 1 2], [1 0 0 2],
 * [1 0 1 1] make that h. */
static void
test_message_by_hand (void)
{
  const int32_t one = SD_TILED_BP_ONE;
  const int32_t data[4] = { 2 * one, 0, one, 4 * one };
  const int32_t a[4] = { one, 0, one, 2 * one }, b[4] = { one, 0, 0, 2 * one };
  const int32_t c[4] = { one, 0, one, one };
  const int32_t expect[2][4] = { {one, 0, one, 2 * one},
  {one / 2, 0, one / 2, one / 2}
  };
  const int32_t cap[2] = { 2 * one + one / 2, one / 2 };
  for (int i = 0; i < 2; i++) {
    int32_t out[4];
    sd_tiled_bp_message (data, a, b, c, out, 4, cap[i]);
    for (int k = 0; k < 4; k++)
      SD_CHECK_INT (out[k], expect[i][k]);
  }
  SD_CHECK_INT (sd_tiled_bp_fixed (0.25f), one / 4);
  SD_CHECK_INT (sd_tiled_bp_fixed (1.5f / one), 2);      /* to even */
  SD_CHECK_INT (sd_tiled_bp_fixed (2.5f / one), 2);
}

/* Pseudo-random data costs in [0, 10). */
static void
random_costs (float *data, size_t n, uint32_t seed)
{
  uint8_t *bytes = malloc (2 * n);
  sd_synth_noise (bytes, 2 * n, seed);
  for (size_t i = 0; i < n; i++)
    data[i] = (bytes[2 * i] * 256 + bytes[2 * i + 1]) * (10.0f / 65536);
  free (bytes);
}

/* One tile over the whole image and one inner iteration, against BP-M
 * written out: right, left, down and up sweeps, each pixel sending to the
 * next from data plus its other three incoming messages, then beliefs.
 * Messages are indexed by the sender, as in SdBpGrid. */
static void
test_one_tile_written_out (void)
{
  enum
  { W = 7, H = 5, D = 6 };
  SdParams p;
  sd_params_init (&p);
  p.num_disparities = D;
  p.tile_size = 8;
  p.outer_iterations = 1;
  p.inner_iterations = 1;
  const int32_t trunc = sd_tiled_bp_fixed (sd_params_bp_disc_trunc (&p));
  static float data[H][W][D], expect[H][W][D];
  static int32_t fixed[H][W][D], up[H][W][D], down[H][W][D], left[H][W][D],
      right[H][W][D];
  random_costs (&data[0][0][0], W * H * D, 11);
  for (int i = 0; i < W * H * D; i++)
    (&fixed[0][0][0])[i] = sd_tiled_bp_fixed ((&data[0][0][0])[i]);
  /* a neighbour outside the image sends nothing: zeros add nothing */
  static const int32_t none[D];
#define FROM_BELOW(y, x) ((y) + 1 < H ? up[(y) + 1][x] : none)
#define FROM_ABOVE(y, x) ((y) > 0 ? down[(y) - 1][x] : none)
#define FROM_RIGHT(y, x) ((x) + 1 < W ? left[y][(x) + 1] : none)
#define FROM_LEFT(y, x) ((x) > 0 ? right[y][(x) - 1] : none)
  for (int y = 0; y < H; y++)
    for (int x = 0; x + 1 < W; x++)
      sd_tiled_bp_message (fixed[y][x], FROM_BELOW (y, x), FROM_ABOVE (y, x),
          FROM_LEFT (y, x), right[y][x], D, trunc);
  for (int y = 0; y < H; y++)
    for (int x = W - 1; x > 0; x--)
      sd_tiled_bp_message (fixed[y][x], FROM_BELOW (y, x), FROM_ABOVE (y, x),
          FROM_RIGHT (y, x), left[y][x], D, trunc);
  for (int y = 0; y + 1 < H; y++)
    for (int x = 0; x < W; x++)
      sd_tiled_bp_message (fixed[y][x], FROM_ABOVE (y, x), FROM_RIGHT (y, x),
          FROM_LEFT (y, x), down[y][x], D, trunc);
  for (int y = H - 1; y > 0; y--)
    for (int x = 0; x < W; x++)
      sd_tiled_bp_message (fixed[y][x], FROM_BELOW (y, x), FROM_RIGHT (y, x),
          FROM_LEFT (y, x), up[y][x], D, trunc);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      for (int k = 0; k < D; k++)
        expect[y][x][k] = (float) (fixed[y][x][k] + FROM_BELOW (y, x)[k] +
            FROM_ABOVE (y, x)[k] + FROM_RIGHT (y, x)[k] +
            FROM_LEFT (y, x)[k]) / SD_TILED_BP_ONE;
#undef FROM_BELOW
#undef FROM_ABOVE
#undef FROM_RIGHT
#undef FROM_LEFT
  float *belief = tiled_beliefs (&p, &data[0][0][0], W, H);
  SD_CHECK (memcmp (belief, expect, sizeof (expect)) == 0,
      "one tile differs from BP-M written out");
  free (belief);
}

/* What a GPU runs: the anti-diagonals of tiles one after the other (the
 * reverse pass from the last one back), the tiles of a diagonal in any
 * order - here last to first - must give raster order's bits. */
static void
test_wavefront (void)
{
  const int w = 45, h = 29;     /* 6 x 4 tiles of 8, the last ones partial */
  SdParams p;
  sd_params_init (&p);
  p.num_disparities = 9;
  p.tile_size = 8;
  p.outer_iterations = 2;
  p.inner_iterations = 2;
  const size_t n = (size_t) w * h * p.num_disparities;
  float *data = malloc (sizeof (float) * n);
  random_costs (data, n, 5);
  float *raster = tiled_beliefs (&p, data, w, h);

  const int tx = 6, ty = 4, diagonals = tx + ty - 1;
  const size_t ws_bytes = sd_cpu_tiled_bp_workspace_bytes (&p, w, h);
  void *ws = calloc (ws_bytes, 1);
  float *wave = malloc (sizeof (float) * n);
  for (int o = 0; o < p.outer_iterations; o++) {
    for (int pass = 0; pass < 2; pass++) {
      const bool last = pass == 1 && o + 1 == p.outer_iterations;
      for (int i = 0; i < diagonals; i++) {
        const int d = pass ? diagonals - 1 - i : i;
        for (int y = ty - 1; y >= 0; y--)
          if (d - y >= 0 && d - y < tx)
            sd_cpu_tiled_bp_visit (&p, data, last ? wave : NULL, ws, w, h,
                d - y, y);
      }
    }
  }
  SD_CHECK (memcmp (raster, wave, sizeof (float) * n) == 0,
      "wavefront order differs from raster order");

  /* any order that visits a tile after its left and upper neighbours and
   * before its right and lower ones is the same method: column-major is;
   * the forward pass running each tile row right to left is not (it
   * sees the left neighbours' messages of the pass before), which shows
   * that these comparisons can fail */
  for (int order = 0; order < 2; order++) {
    memset (ws, 0, ws_bytes);
    for (int o = 0; o < p.outer_iterations; o++)
      for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < tx * ty; i++) {
          const int t = pass ? tx * ty - 1 - i : i;
          const bool last = pass == 1 && o + 1 == p.outer_iterations;
          const int x = order ? tx - 1 - t % tx : t / ty;
          const int y = order ? t / tx : t % ty;
          sd_cpu_tiled_bp_visit (&p, data, last ? wave : NULL, ws, w, h, x,
              y);
        }
    const bool same = memcmp (raster, wave, sizeof (float) * n) == 0;
    SD_CHECK (same == (order == 0), "%s order %s raster order",
        order ? "right-to-left" : "column-major", same ? "gives" :
        "differs from");
  }
  free (data);
  free (raster);
  free (ws);
  free (wave);
}

/* The cpu backend's tiled BP (common/fast/fast-tiledbp.c) runs the tiles
 * of each anti-diagonal on threads: the beliefs are the reference's for
 * every thread count, on images with partial tiles, a single tile column
 * and row, and more threads than a diagonal has tiles. */
static void
test_threads (void)
{
  static const int cases[][5] = {
    /* width, height, disparities, tile size, inner iterations */
    {45, 29, 9, 8, 2}, {97, 61, 16, 10, 1}, {7, 40, 5, 10, 2},
    {50, 3, 3, 4, 1}, {120, 90, 33, 16, 1},
  };
  static const int threads[] = { 1, 2, 3, 7, 16 };
  const SdCpuStages *st = sd_fast_pick_stages ();
  for (size_t c = 0; c < sizeof (cases) / sizeof (cases[0]); c++) {
    const int w = cases[c][0], h = cases[c][1];
    SdParams p;
    sd_params_init (&p);
    p.algorithm = SD_ALGORITHM_TILED_BP;
    p.num_disparities = cases[c][2];
    p.tile_size = cases[c][3];
    p.inner_iterations = cases[c][4];
    p.outer_iterations = 2;
    const size_t n = (size_t) w * h * p.num_disparities;
    float *data = malloc (sizeof (float) * n);
    random_costs (data, n, 17 + (uint32_t) c);
    float *want = tiled_beliefs (&p, data, w, h);
    float *got = malloc (sizeof (float) * n);
    for (size_t t = 0; t < sizeof (threads) / sizeof (threads[0]); t++) {
      p.threads = threads[t];
      void *ws = malloc (st->tiled_bp_workspace_bytes (&p, w, h));
      memset (got, 0, sizeof (float) * n);
      st->tiled_bp (&p, data, got, ws, w, h);
      SD_CHECK (memcmp (want, got, sizeof (float) * n) == 0,
          "%dx%d, %d disparities, tiles of %d: %d threads differ from the "
          "reference", w, h, p.num_disparities, p.tile_size, p.threads);
      free (ws);
    }
    free (data);
    free (want);
    free (got);
  }
}

/* Energy of labels on a chain: data plus min(|a - b|, trunc) per edge. */
static double
chain_energy (const float *data, const int *label, int w, int D, float trunc)
{
  double e = 0;
  for (int x = 0; x < w; x++) {
    e += data[x * D + label[x]];
    if (x > 0)
      e += fmin (abs (label[x] - label[x - 1]), trunc);
  }
  return e;
}

/* The lowest chain energy, by dynamic programming. */
static double
chain_minimum (const float *data, int w, int D, float trunc)
{
  double cost[SD_MAX_DISPARITIES], next[SD_MAX_DISPARITIES];
  for (int k = 0; k < D; k++)
    cost[k] = data[k];
  for (int x = 1; x < w; x++) {
    for (int k = 0; k < D; k++) {
      double best = INFINITY;
      for (int j = 0; j < D; j++)
        best = fmin (best, cost[j] + fmin (abs (k - j), trunc));
      next[k] = best + data[x * D + k];
    }
    memcpy (cost, next, sizeof (double) * D);
  }
  double best = INFINITY;
  for (int k = 0; k < D; k++)
    best = fmin (best, cost[k]);
  return best;
}

/* On a 1-pixel-high image BP-M is exact: the raster pass carries
 * everything left of a tile into it, the reverse pass everything right of
 * it, and inside a tile one right and one left sweep do the same.  So the
 * beliefs' argmins minimise the chain's energy, with one tile or many,
 * whether or not the tile size divides the width; likewise down a
 * 1-pixel-wide image. */
static void
test_chain (void)
{
  const int w = 61, D = 12;
  float data[61 * 12];
  random_costs (data, w * D, 3);
  /* costs the fixed point holds exactly, so that the energies compared
   * are the ones BP minimised */
  for (int i = 0; i < w * D; i++)
    data[i] = (float) sd_tiled_bp_fixed (data[i]) / SD_TILED_BP_ONE;
  const int tiles[] = { 4, 7, 16, 64 };
  for (size_t t = 0; t < sizeof (tiles) / sizeof (tiles[0]); t++) {
    SdParams p;
    sd_params_init (&p);
    p.num_disparities = D;
    p.disc_trunc = 3;
    p.tile_size = tiles[t];
    p.outer_iterations = 1;
    p.inner_iterations = 1;
    /* along a row, and along a column (a 1-pixel-wide image) */
    for (int vertical = 0; vertical < 2; vertical++) {
      float *belief = tiled_beliefs (&p, data, vertical ? 1 : w,
          vertical ? w : 1);
      int label[61];
      for (int x = 0; x < w; x++) {
        label[x] = 0;
        for (int k = 1; k < D; k++)
          if (belief[x * D + k] < belief[x * D + label[x]])
            label[x] = k;
      }
      const double got = chain_energy (data, label, w, D, p.disc_trunc);
      const double best = chain_minimum (data, w, D, p.disc_trunc);
      SD_CHECK (fabs (got - best) < 1e-3, "tile %d, %s: chain energy %.4f, "
          "the minimum is %.4f", tiles[t], vertical ? "column" : "row", got,
          best);
      free (belief);
    }
  }
}

static uint16_t *
run (const SdParams * p, const uint8_t * l, const uint8_t * r, int w, int h)
{
  SdPlane left = { (void *) l, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  SdPlane right = { (void *) r, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  SdError err;
  uint16_t *disp = sd_engine_run_once ("cpu", p, &left, &right, &err);
  SD_CHECK (disp != NULL, "%dx%d: %s", w, h, err.message);
  return disp;
}

/* Same bar as SGM and hbp: within 1 px on 99 % of the pixels seen in both
 * views, with the default parameters; and the same bits twice. */
static void
test_synthetic (void)
{
  const int w = 200, h = 150;
  for (const SdSynthScene * s = sd_synth_scenes; s->name; s++) {
    SdSynthPair pair;
    SD_CHECK (sd_synth_render (&pair, w, h, s->layers, s->n_layers, 7),
        "out of memory");
    SdParams p;
    sd_params_init (&p);
    /* the matcher alone: these scenes' random-noise textures put no luma
     * edge where a surface ends, which the guided median needs (on them it
     * rounds the planes' corners off: SGM 99.84 -> 99.03 % within 1 px); its
     * gain is measured on the real and rendered sets, test-accuracy */
    p.guided_median = false;
    p.algorithm = SD_ALGORITHM_TILED_BP;
    p.num_disparities = s->num_disparities;
    uint16_t *disp = run (&p, pair.left, pair.right, w, h);
    uint16_t *again = run (&p, pair.left, pair.right, w, h);
    if (disp && again) {
      SdAccuracy a = sd_accuracy_score (disp, sizeof (uint16_t) * w,
          pair.gt, pair.visible, w, h);
      printf ("tiled-bp %-24s within 1 px on %.2f %% of %ld visible pixels "
          "(invalid %.2f %%)\n", s->name, 100 - a.bad1, a.gt_pixels,
          a.invalid);
      SD_CHECK (a.bad1 <= 1.0, "%s: %.2f %% off by more than 1 px or "
          "invalid", s->name, a.bad1);
      SD_CHECK (memcmp (disp, again, sizeof (uint16_t) * w * h) == 0,
          "%s: two runs differ", s->name);
    }
    free (disp);
    free (again);
    sd_synth_free (&pair);
  }
}

/* Sizes that stress the tiling: tiles that do not divide the image, a
 * 1-pixel-high and a 1-pixel-wide image, an image narrower than the
 * disparity range, a tile larger than the image.  Each must run, give the
 * same bits twice and stay in the disparity range. */
static void
test_edge_sizes (void)
{
  const struct
  {
    int w, h, num_disparities, tile_size;
  } cases[] = {
    {37, 23, 16, 16}, {50, 1, 16, 8}, {1, 40, 4, 4}, {20, 12, 64, 8},
    {13, 9, 8, 256}, {33, 17, 5, 4},
  };
  for (size_t c = 0; c < sizeof (cases) / sizeof (cases[0]); c++) {
    const int w = cases[c].w, h = cases[c].h;
    uint8_t *l = malloc ((size_t) w * h), *r = malloc ((size_t) w * h);
    sd_synth_noise (l, (size_t) w * h, 21);
    /* the right view is the left shifted by 2 pixels */
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        r[y * w + x] = l[y * w + (x + 2 < w ? x + 2 : w - 1)];
    SdParams p;
    sd_params_init (&p);
    p.algorithm = SD_ALGORITHM_TILED_BP;
    p.num_disparities = cases[c].num_disparities;
    p.tile_size = cases[c].tile_size;
    uint16_t *disp = run (&p, l, r, w, h);
    uint16_t *again = run (&p, l, r, w, h);
    if (disp && again) {
      SD_CHECK (memcmp (disp, again, sizeof (uint16_t) * w * h) == 0,
          "%dx%d: two runs differ", w, h);
      for (int i = 0; i < w * h; i++)
        SD_CHECK (disp[i] <= 16 * (p.num_disparities - 1),
            "%dx%d: pixel %d has %d, out of range", w, h, i, disp[i]);
    }
    free (disp);
    free (again);
    free (l);
    free (r);
  }
}

/* The MEMOCODE 2013 measure: Tsukuba with 16 labels, the bare labels (no
 * subpixel, left-right check, median or fill), pixels with ground truth
 * whose label differs from it.  The ground truth is whole pixels, so with
 * whole-pixel labels bad>0.5 counts exactly these.  Two settings: the
 * defaults, and the one docs/performance.md times under 1 ms on the GPU
 * (Felzenszwalb and Huttenlocher's smoothing, large tiles, one pass); both
 * on the thesis's data cost, absolute differences of intensities. */
static void
test_tsukuba_labels (const char *data)
{
  const struct
  {
    float sigma;
    int tile, outer, inner;
  } settings[] = { {0, 0, 0, 0}, {0.7f, 16, 1, 1} };
  for (size_t i = 0; i < sizeof (settings) / sizeof (settings[0]); i++) {
    SdParams p;
    sd_params_init (&p);
    p.algorithm = SD_ALGORITHM_TILED_BP;
    p.cost = SD_COST_AD;
    p.num_disparities = 16;
    p.subpixel = false;
    p.lr_check = SD_LR_CHECK_OFF;
    p.median = false;
    if (settings[i].tile) {
      p.sigma = settings[i].sigma;
      p.tile_size = settings[i].tile;
      p.outer_iterations = settings[i].outer;
      p.inner_iterations = settings[i].inner;
    }
    SdAccuracy a = { 0 };
    char msg[512];
    if (!sd_stereo_set_score (data, "mb2001_tsukuba", "cpu", &p, &a, msg,
            sizeof (msg))) {
      SD_CHECK (0, "%s", msg);
      return;
    }
    const long mismatches = lround (a.bad05 * a.gt_pixels / 100);
    printf ("tiled-bp tsukuba labels: %ld of %ld ground-truth pixels differ "
        "(sigma %.1f, tile %d, %d outer x %d inner; thesis: GPU 15716, "
        "reference BP 17743)\n", mismatches, a.gt_pixels, p.sigma,
        p.tile_size, p.outer_iterations, p.inner_iterations);
    SD_CHECK (mismatches <= 15716, "%ld label mismatches, more than 15716",
        mismatches);
  }
}

/* Default parameters with hole filling on the thesis's data cost (absolute
 * differences), as the hbp test.  The limits are this method's measured
 * bad>1 (docs/algorithms.md) plus about a tenth, a guard against
 * regressions; the half-size sets and the other 2001 sets are measured
 * there only, to keep this test near a minute. */
static void
test_middlebury (const char *data)
{
  static const struct
  {
    const char *set;
    int num_disparities;
    double limit;               /* bad>1, percent */
  } sets[] = {
    {"mb2001_tsukuba", 16, 4.3},
    {"mb2001_venus", 21, 5.8},
    {"mb2003_teddy_quarter", 64, 24.4},
    {"mb2003_cones_quarter", 64, 18.2},
  };
  for (size_t i = 0; i < sizeof (sets) / sizeof (sets[0]); i++) {
    SdParams p;
    sd_params_init (&p);
    p.algorithm = SD_ALGORITHM_TILED_BP;
    p.cost = SD_COST_AD;
    p.num_disparities = sets[i].num_disparities;
    SdAccuracy a = { 0 };
    char msg[512];
    if (!sd_stereo_set_score (data, sets[i].set, "cpu", &p, &a, msg,
            sizeof (msg))) {
      SD_CHECK (0, "%s", msg);
      continue;
    }
    printf ("tiled-bp %-22s D=%-3d: bad>1 %6.2f %% (limit %5.2f %%)  bad>2 "
        "%6.2f %%  mae %.3f px\n", sets[i].set, p.num_disparities, a.bad1,
        sets[i].limit, a.bad2, a.mae);
    SD_CHECK (a.bad1 <= sets[i].limit, "%s: bad>1 %.2f %% is over %.2f %%",
        sets[i].set, a.bad1, sets[i].limit);
  }
}

int
main (int argc, char **argv)
{
  test_one_tile_by_hand ();
  test_boundary_by_hand ();
  test_message_by_hand ();
  test_one_tile_written_out ();
  test_wavefront ();
  test_threads ();
  test_chain ();
  test_synthetic ();
  test_edge_sizes ();
  struct stat st;
  if (argc > 1 && stat (argv[1], &st) == 0) {
    test_tsukuba_labels (argv[1]);
    test_middlebury (argv[1]);
  } else {
    printf ("no stereo data folder: Middlebury checks not run\n");
  }
  return sd_test_exit ("test-tiledbp");
}
