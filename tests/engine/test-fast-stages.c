/* The fast CPU stages of one instruction-set build (SD_CPU_ISA, or the best
 * this processor runs) against the reference's, stage by stage, bit for
 * bit, on random inputs of edge sizes: the census and cost volume, the
 * disparity median with every share of invalid pixels, the guided median,
 * hierarchical BP's beliefs, tiled BP's messages and beliefs, the
 * temporal filter's rows and the rectification's remap.  test-cpu-agreement
 * holds the whole pipeline; this one names the stage that differs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/sd-cpu.h"
#include "fast/sd-fast.h"
#include "sd-rectify.h"
#include "sd-test.h"

/* the widest crosses the census's segments of 1024 pixels */
static const int sizes[][2] = { {1, 1}, {2, 3}, {3, 3}, {9, 7}, {17, 9},
{40, 7}, {97, 61}, {33, 1}, {1, 33}, {130, 12}, {300, 5}, {1100, 9}
};

#define N_SIZES (sizeof (sizes) / sizeof (sizes[0]))

static void
test_cost_volume (const SdCpuStages * st)
{
  static const SdCensusWindow windows[] = { SD_CENSUS_9X7, SD_CENSUS_5X5,
    SD_CENSUS_CS9X7
  };
  for (size_t s = 0; s < N_SIZES; s++) {
    const int w = sizes[s][0], h = sizes[s][1];
    const size_t n = (size_t) w * h;
    uint8_t *left = malloc (n), *right = malloc (n);
    for (size_t i = 0; i < n; i++) {
      /* few grey levels: many equal neighbours, where < and <= differ */
      left[i] = (uint8_t) (rand () % 7 * 40);
      right[i] = (uint8_t) (rand () % 7 * 40);
    }
    /* the last two: the widest range, and one that starts past the
     * narrower frames (the census words are gathered by chunks of pixels
     * and their D candidates) */
    for (int c = 0; c < 9; c++) {
      SdParams p;
      sd_params_init (&p);
      p.num_disparities = c < 7 ? 16 + c : c == 7 ? SD_MAX_DISPARITIES : 250;
      p.min_disparity = c < 7 ? c % 4 : c == 7 ? 0 : 200;
      p.cost = c == 3 ? SD_COST_AD : c < 3 ? SD_COST_CENSUS :
          SD_COST_CENSUS_AD;
      p.census_window = windows[c % 3];
      const size_t bytes = n * p.num_disparities;
      uint64_t *cl[2], *cr[2];
      uint8_t *cost[2];
      for (int k = 0; k < 2; k++) {
        cl[k] = malloc (n * sizeof (uint64_t));
        cr[k] = malloc (n * sizeof (uint64_t));
        cost[k] = malloc (bytes + SD_FAST_COST_PADDING);
      }
      if (sd_params_uses_census (&p)) {
        sd_cpu_census (left, cl[0], w, h, p.census_window);
        sd_cpu_census (right, cr[0], w, h, p.census_window);
        st->census (&p, left, cl[1], w, h);
        st->census (&p, right, cr[1], w, h);
        SD_CHECK (!memcmp (cl[0], cl[1], n * sizeof (uint64_t))
            && !memcmp (cr[0], cr[1], n * sizeof (uint64_t)),
            "census %d of %dx%d differs", (int) p.census_window, w, h);
      }
      sd_cpu_cost_volume (&p, left, right, cl[0], cr[0], cost[0], w, h);
      st->cost_volume (&p, left, right, cl[1], cr[1], cost[1], w, h);
      SD_CHECK (!memcmp (cost[0], cost[1], bytes),
          "cost volume %d of %dx%d D%d differs", c, w, h, p.num_disparities);
      for (int k = 0; k < 2; k++) {
        free (cl[k]);
        free (cr[k]);
        free (cost[k]);
      }
    }
    free (left);
    free (right);
  }
}

static void
test_median_disparity (const SdCpuStages * st)
{
  SdParams p;
  sd_params_init (&p);
  static const int invalid_percent[] = { 0, 10, 50, 90, 100 };
  for (size_t s = 0; s < N_SIZES; s++) {
    const int w = sizes[s][0], h = sizes[s][1];
    const size_t n = (size_t) w * h;
    int16_t *src = malloc (n * 2), *want = malloc (n * 2), *got =
        malloc (n * 2);
    for (size_t i = 0; i < 5; i++) {
      for (size_t j = 0; j < n; j++)
        src[j] = rand () % 100 < invalid_percent[i] ? SD_DISP_INVALID :
            (int16_t) (rand () % 4096);
      sd_cpu_median_disparity (src, want, w, h);
      st->median_disparity (&p, src, got, w, h);
      SD_CHECK (!memcmp (want, got, n * 2), "median of %dx%d, %d %% invalid",
          w, h, invalid_percent[i]);
    }
    free (src);
    free (want);
    free (got);
  }
}

/* Random maps (holes, zeros and values up to the largest the engine
 * writes) with random luma, and with luma in a few levels, where many
 * samples tie in weight and in value. */
static void
test_guided_median (const SdCpuStages * st)
{
  SdParams p;
  sd_params_init (&p);
  static const int invalid_percent[] = { 0, 10, 50, 90, 100 };
  static const int extra_sizes[][2] = { {13, 13}, {14, 40}, {45, 20},
    {77, 31}
  };
  for (size_t s = 0; s < N_SIZES + 4; s++) {
    const int w = s < N_SIZES ? sizes[s][0] : extra_sizes[s - N_SIZES][0];
    const int h = s < N_SIZES ? sizes[s][1] : extra_sizes[s - N_SIZES][1];
    const size_t n = (size_t) w * h;
    int16_t *src = malloc (n * 2), *want = malloc (n * 2), *got =
        malloc (n * 2);
    uint8_t *guide = malloc (n);
    for (size_t i = 0; i < 10; i++) {
      const int levels = i % 2 ? 256 : 3;
      for (size_t j = 0; j < n; j++) {
        src[j] = rand () % 100 < invalid_percent[i % 5] ? (rand () % 2 ?
            SD_DISP_INVALID : 0) : (int16_t) (1 + rand () % (i < 5 ? 64 :
                (SD_MAX_MIN_DISPARITY + SD_MAX_DISPARITIES) * 16 - 1));
        guide[j] = (uint8_t) (rand () % levels * (255 / (levels - 1)));
      }
      sd_cpu_guided_median (src, guide, want, w, h);
      st->guided_median (&p, src, guide, got, w, h);
      SD_CHECK (!memcmp (want, got, n * 2), "guided median of %dx%d, %d %% "
          "holes, %d luma levels", w, h, invalid_percent[i % 5], levels);
    }
    free (src);
    free (want);
    free (got);
    free (guide);
  }
}

static void
test_hbp (const SdCpuStages * st)
{
  static const int cases[][4] = {
    /* num-disparities, levels (0 = from the size), iterations,
     * disc-trunc */
    {16, 0, 7, 0}, {1, 2, 3, 0}, {2, 1, 1, 1}, {33, 4, 4, 3}, {64, 8, 2, 0},
  };
  for (size_t s = 0; s < N_SIZES; s++) {
    const int w = sizes[s][0], h = sizes[s][1];
    const size_t n = (size_t) w * h;
    for (size_t c = 0; c < sizeof (cases) / sizeof (cases[0]); c++) {
      SdParams p;
      sd_params_init (&p);
      p.algorithm = SD_ALGORITHM_HBP;
      p.num_disparities = cases[c][0];
      p.levels = cases[c][1];
      p.iterations = cases[c][2];
      p.disc_trunc = (float) cases[c][3];
      const size_t values = n * p.num_disparities;
      float *data = malloc (values * sizeof (float));
      float *want = malloc (values * sizeof (float));
      float *got = malloc (values * sizeof (float));
      for (size_t i = 0; i < values; i++)
        data[i] = p.data_weight * (float) (rand () % 40);
      void *ws_ref = malloc (sd_cpu_hbp_workspace_bytes (&p, w, h));
      void *ws_fast = malloc (st->hbp_workspace_bytes (&p, w, h));
      sd_cpu_hbp (&p, data, want, ws_ref, w, h);
      st->hbp (&p, data, got, ws_fast, w, h);
      SD_CHECK (!memcmp (want, got, values * sizeof (float)),
          "hbp beliefs of %dx%d, case %d", w, h, (int) c);
      free (data);
      free (want);
      free (got);
      free (ws_ref);
      free (ws_fast);
    }
  }
}

/* Tiled BP's message on random inputs: every range length around the
 * vectors' widths, messages near and far above their smallest entry, and
 * caps from none (0) through reaches the steps within the registers cover
 * (up to 15 disparities) to ones that take whole-vector steps, up to the
 * whole range. */
static void
test_tiled_bp_message (const SdCpuStages * st)
{
  static const int32_t caps[] = { 0, 1, 1024, 1025, 2185, 5000, 8738, 9216,
    16383, 16384, 17409, 40000, 1000 * SD_TILED_BP_ONE
  };
  static const int32_t spreads[] = { 3 * SD_TILED_BP_ONE,
    40 * SD_TILED_BP_ONE
  };
  /* every count to 40, then around 4, 8 and 16 vectors of each width */
  static const int longer[] = { 49, 57, 63, 64, 65, 113, 127, 128, 200,
    SD_MAX_DISPARITIES
  };
  for (int j = 0; j < 40 + (int) (sizeof (longer) / sizeof (longer[0]));
      j++) {
    const int D = j < 40 ? j + 1 : longer[j - 40];
    int32_t in[4][SD_MAX_DISPARITIES], want[SD_MAX_DISPARITIES],
        got[SD_MAX_DISPARITIES + 1];
    for (size_t c = 0; c < sizeof (caps) / sizeof (caps[0]); c++) {
      for (int r = 0; r < 2; r++) {
        for (int i = 0; i < 4; i++)
          for (int k = 0; k < D; k++)
            in[i][k] = rand () % spreads[r];
        got[D] = -7;            /* nothing written past the range */
        sd_tiled_bp_message (in[0], in[1], in[2], in[3], want, D, caps[c]);
        st->tiled_bp_arithmetic->message (in[0], in[1], in[2], in[3], got, D,
            caps[c]);
        SD_CHECK (!memcmp (want, got, sizeof (int32_t) * D) && got[D] == -7,
            "tiled BP message of %d disparities, cap %d, spread %d", D,
            caps[c], spreads[r]);
      }
    }
  }
}

/* Tiled BP's costs in fixed point: every length around the vectors'
 * widths, values from 0 to the largest data cost, halves (ties, to even)
 * among them. */
static void
test_tiled_bp_to_fixed (const SdCpuStages * st)
{
  enum { N = 300 };
  float cost[N];
  int32_t want[N + 1], got[N + 1];
  for (int n = 0; n <= N; n += n < 40 ? 1 : 37) {
    for (int i = 0; i < n; i++)
      cost[i] = i % 3 ? (float) (rand () % 100000) / 977.0f :
          (float) (rand () % 4000) / (2 * SD_TILED_BP_ONE);
    got[n] = -7;                /* nothing written past n */
    sd_tiled_bp_to_fixed (cost, want, n);
    st->tiled_bp_arithmetic->to_fixed (cost, got, n);
    SD_CHECK (!memcmp (want, got, sizeof (int32_t) * n) && got[n] == -7,
        "tiled BP costs in fixed point, %d of them", n);
  }
}

/* Tiled BP's beliefs, whole frames against the reference's. */
static void
test_tiled_bp (const SdCpuStages * st)
{
  static const int cases[][3] = {
    /* num-disparities, tile size, disc-trunc (0: automatic) */
    {16, 10, 0}, {1, 4, 0}, {21, 7, 0}, {64, 10, 0}, {33, 16, 3},
    {40, 10, 30},
  };
  for (size_t s = 0; s < N_SIZES; s++) {
    const int w = sizes[s][0], h = sizes[s][1];
    if ((size_t) w * h > 4000)
      continue;                 /* the reference visits on one thread */
    for (size_t c = 0; c < sizeof (cases) / sizeof (cases[0]); c++) {
      SdParams p;
      sd_params_init (&p);
      p.algorithm = SD_ALGORITHM_TILED_BP;
      p.num_disparities = cases[c][0];
      p.tile_size = cases[c][1];
      p.disc_trunc = (float) cases[c][2];
      p.outer_iterations = 2;
      const size_t values = (size_t) w * h * p.num_disparities;
      float *data = malloc (values * sizeof (float));
      float *want = malloc (values * sizeof (float));
      float *got = malloc (values * sizeof (float));
      for (size_t i = 0; i < values; i++)
        data[i] = p.data_weight * (float) (rand () % 400);
      void *ws_ref = malloc (sd_cpu_tiled_bp_workspace_bytes (&p, w, h));
      void *ws_fast = malloc (st->tiled_bp_workspace_bytes (&p, w, h));
      sd_cpu_tiled_bp (&p, data, want, ws_ref, w, h);
      st->tiled_bp (&p, data, got, ws_fast, w, h);
      SD_CHECK (!memcmp (want, got, values * sizeof (float)),
          "tiled BP beliefs of %dx%d, case %d", w, h, (int) c);
      free (data);
      free (want);
      free (got);
      free (ws_ref);
      free (ws_fast);
    }
  }
}

/* The temporal filter's row over frames of noise around a value, holes
 * and jumps, with parameters from none to every pixel smoothed and held:
 * output, history and hold counts as the reference's. */
static void
test_temporal_row (const SdCpuStages * st)
{
  const SdTemporalParams params[] = { {256, 0, 0}, {102, 16, 2}, {1, 65535,
          255}, {128, 40, 1}
  };
  enum { W = 131, FRAMES = 12 };
  for (size_t k = 0; k < sizeof (params) / sizeof (params[0]); k++) {
    uint16_t ref_value[W] = { 0 }, fast_value[W] = { 0 };
    uint8_t ref_held[W] = { 0 }, fast_held[W] = { 0 };
    for (int f = 0; f < FRAMES; f++) {
      uint16_t ref_row[W], fast_row[W];
      for (int x = 0; x < W; x++) {
        const int r = rand () % 100;
        ref_row[x] = r < 20 ? 0 : r < 30 ? (uint16_t) (rand () % 65536) :
            (uint16_t) (800 + rand () % 60);
        fast_row[x] = ref_row[x];
      }
      sd_temporal_row (&params[k], ref_row, ref_value, ref_held, W);
      st->temporal_row (&params[k], fast_row, fast_value, fast_held, W);
      SD_CHECK (!memcmp (ref_row, fast_row, sizeof (ref_row))
          && !memcmp (ref_value, fast_value, sizeof (ref_value))
          && !memcmp (ref_held, fast_held, sizeof (ref_held)),
          "temporal row, parameters %zu, frame %d", k, f);
    }
  }
}

/* A map entry inside a w x h image (in 1/256 pixel): kind 0 anywhere at
 * random, 1 a turned and scaled grid (runs of neighbouring taps, the
 * vectors' case), 2 the grid pushed onto the last columns and rows (where
 * the map clamps). */
static void
rectify_map_entry (int kind, int x, int y, int w, int h, int32_t * e)
{
  const int32_t xmax = (w - 1) * SD_RECTIFY_ONE, ymax = (h - 1) *
      SD_RECTIFY_ONE;
  int32_t mx, my;
  if (kind == 0) {
    mx = rand () % (xmax + 1);
    my = rand () % (ymax + 1);
  } else {
    mx = (int32_t) (x * 247 + y * 9 + 300) + (kind == 2 ? xmax - 600 : 0);
    my = (int32_t) (y * 262 - x * 7 + 500) + (kind == 2 ? ymax - 900 : 0);
  }
  e[0] = mx < 0 ? 0 : mx > xmax ? xmax : mx;
  e[1] = my < 0 ? 0 : my > ymax ? ymax : my;
}

/* A w x h map of kind's entries; free() it. */
static int32_t *
rectify_map_new (int kind, int w, int h)
{
  int32_t *map = malloc (2 * (size_t) w * h * sizeof (int32_t));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      rectify_map_entry (kind, x, y, w, h, map + 2 * ((size_t) y * w + x));
  return map;
}

/* The remap of one byte of each pixel (pixel strides 1 to 4, rows padded):
 * the reference's bytes, and the bytes between untouched. */
static void
test_rectify_rows (const SdCpuStages * st)
{
  for (size_t s = 0; s < N_SIZES; s++)
    for (int kind = 0; kind < 3; kind++)
      for (int ps = 1; ps <= 4; ps++) {
        const int w = sizes[s][0], h = sizes[s][1], stride = w * ps + 5;
        const size_t n = (size_t) stride * h;
        int32_t *map = rectify_map_new (kind, w, h);
        uint8_t *src = malloc (n), *ref = malloc (n), *fast = malloc (n);
        for (size_t i = 0; i < n; i++)
          src[i] = (uint8_t) rand ();
        memset (ref, 0x5a, n);
        memset (fast, 0x5a, n);
        sd_rectify_component_rows (map, src + ps / 2, stride, ref + ps / 2,
            stride, ps, w, h, 0, h);
        st->rectify_rows (map, src + ps / 2, stride, fast + ps / 2, stride,
            ps, w, h, 0, h);
        SD_CHECK (!memcmp (ref, fast, n), "rectify %dx%d, map %d, pixel "
            "stride %d", w, h, kind, ps);
        free (map);
        free (src);
        free (ref);
        free (fast);
      }
}

/* The same for a component of 16-bit words (pixel strides 1 to 3 words:
 * GRAY16's, P010's chroma, 3 for a stride no format has), the value's
 * bits where P010, I420_10LE, P012 and Y444_16LE put them. */
static void
test_rectify16_rows (const SdCpuStages * st)
{
  static const int bits[][2] = { {16, 0}, {10, 6}, {10, 0}, {12, 4} };
  for (size_t s = 0; s < N_SIZES; s++)
    for (int kind = 0; kind < 3; kind++)
      for (int ps = 1; ps <= 3; ps++) {
        const int w = sizes[s][0], h = sizes[s][1], stride = w * ps + 3;
        const size_t n = (size_t) stride * h;
        const int b = (int) ((s + kind + ps) % 4);
        int32_t *map = rectify_map_new (kind, w, h);
        uint16_t *src = malloc (2 * n), *ref = malloc (2 * n),
            *fast = malloc (2 * n);
        for (size_t i = 0; i < n; i++)
          src[i] = (uint16_t) rand ();
        for (size_t i = 0; i < n; i++)
          ref[i] = fast[i] = 0x5a5a;
        sd_rectify_component16_rows (map, src + ps / 2, 2 * stride,
            ref + ps / 2, 2 * stride, ps, bits[b][0], bits[b][1], w, h, 0,
            h);
        st->rectify16_rows (map, src + ps / 2, 2 * stride, fast + ps / 2,
            2 * stride, ps, bits[b][0], bits[b][1], w, h, 0, h);
        SD_CHECK (!memcmp (ref, fast, 2 * n), "rectify16 %dx%d, map %d, "
            "pixel stride %d, %d bits from %d", w, h, kind, ps, bits[b][0],
            bits[b][1]);
        free (map);
        free (src);
        free (ref);
        free (fast);
      }
}

int
main (void)
{
  const SdCpuStages *st = sd_fast_pick_stages ();
  const char *wanted = getenv ("SD_CPU_ISA");
  if (wanted && strcmp (wanted, st->isa)) {
    printf ("this processor does not run the %s build: skipped\n", wanted);
    return SD_TEST_SKIP;
  }
  printf ("the %s build\n", st->isa);
  srand (14);
  test_cost_volume (st);
  test_median_disparity (st);
  test_guided_median (st);
  test_hbp (st);
  test_tiled_bp_message (st);
  test_tiled_bp_to_fixed (st);
  test_tiled_bp (st);
  test_temporal_row (st);
  test_rectify_rows (st);
  test_rectify16_rows (st);
  return sd_test_exit ("test-fast-stages");
}
