/* Horizontal bands (sd-band.h):
 * - the geometry: the kept rows of the bands cover the frame once, each
 *   band computes its kept rows with the overlap around them (less only at
 *   the frame's edges), and every band of a frame has the same height;
 * - the stitching: a banded frame is, band by band, the engine run on the
 *   band's rows as an image of its own, cut to the rows the band keeps
 *   (disparity and confidence, hbp and tiled-bp); sgm's bands are exact:
 *   the whole frame's output;
 * - band rows that cover the frame change nothing;
 * - max-device-memory on the cpu backends: the bands chosen to fit are
 *   the same as those band rows given by hand, too little is an error;
 * - what hbp's bands cost on the classic Middlebury sets: bad > 1 px
 *   (invalid counted as bad) of the defaults in bands of a quarter of the
 *   height against the whole frame, at most 1.5 points worse on each set
 *   (its coarse levels carry information across the whole frame, which
 *   bands cut).
 *
 * Usage: test-bands DATA_DIR (../shared/data/stereo) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sd-band.h"
#include "sd-eval.h"
#include "sd-synth.h"
#include "sd-test.h"

static void
test_geometry (void)
{
  static const int heights[] = { 1, 2, 50, 129, 130, 300, 1080 };
  static const int rows[] = { 1, 2, 37, 64, 100, 128, 1079, 1080, 5000 };
  for (size_t i = 0; i < sizeof (heights) / sizeof (heights[0]); i++)
    for (size_t j = 0; j < sizeof (rows) / sizeof (rows[0]); j++) {
      const int h = heights[i], r = rows[j];
      const int count = sd_band_count (h, r);
      SD_CHECK (count == (r >= h ? 1 : (h + r - 1) / r), "h %d rows %d: %d "
          "bands", h, r, count);
      int next = 0;
      for (int k = 0; k < count; k++) {
        const SdBand b = sd_band_get (h, r, k);
        const int in_end = b.in_y0 + b.in_height;
        const int keep_end = b.keep_y0 + b.keep_height;
        SD_CHECK (b.keep_y0 == next && b.keep_height > 0, "h %d rows %d band "
            "%d keeps %d+%d after %d", h, r, k, b.keep_y0, b.keep_height,
            next);
        SD_CHECK (b.in_y0 >= 0 && in_end <= h && b.in_y0 <= b.keep_y0
            && keep_end <= in_end, "h %d rows %d band %d: in %d+%d keep "
            "%d+%d", h, r, k, b.in_y0, b.in_height, b.keep_y0,
            b.keep_height);
        const int above = b.keep_y0 < SD_BAND_OVERLAP ? b.keep_y0 :
            SD_BAND_OVERLAP;
        const int below = h - keep_end < SD_BAND_OVERLAP ? h - keep_end :
            SD_BAND_OVERLAP;
        SD_CHECK (count == 1 || (b.keep_y0 - b.in_y0 >= above
                && in_end - keep_end >= below), "h %d rows %d band %d has "
            "less overlap than it could", h, r, k);
        SD_CHECK (b.in_height == sd_band_get (h, r, 0).in_height,
            "h %d rows %d: band %d is %d rows high", h, r, k, b.in_height);
        next = keep_end;
      }
      SD_CHECK (next == h, "h %d rows %d: the bands end at row %d", h, r,
          next);
    }
}

/* A frame the bands split, on the cpu backend with the confidence. */
static void
run (const SdParams * params, const SdPlane * left, const SdPlane * right,
    uint16_t * out, uint8_t * conf)
{
  const int w = left->width, h = left->height;
  SdPlane o = { out, w, h, (size_t) w * 2, SD_PIXEL_GRAY16 };
  SdPlane c = { conf, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  SdError err;
  SdEngine *e = sd_engine_new ("cpu", 0, params, &err);
  SD_CHECK (e && sd_engine_process (e, left, right, &o, &c, &err) == SD_OK,
      "%s", err.message);
  SD_CHECK (!e || sd_engine_band_rows (e) == params->band_rows,
      "the engine reports %d band rows", e ? sd_engine_band_rows (e) : -1);
  sd_engine_free (e);
}

static void
test_stitching (void)
{
  const int w = 120, h = 260, rows = 50;
  const SdSynthLayer layers[] = {
    {0, 0, 0, 0, 3, 0.05, 0},
    {20, 40, 70, 200, 18, 0, 0},
    {60, 90, 110, 260, 27, 0, 0},
  };
  SdSynthPair sp;
  SD_CHECK (sd_synth_render (&sp, w, h, layers, 3, 5), "rendering");
  const SdPlane left = { sp.left, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  const SdPlane right = { sp.right, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  const size_t n = (size_t) w * h;
  uint16_t *whole = malloc (n * 2), *banded = malloc (n * 2),
      *band_out = malloc (n * 2);
  uint8_t *whole_conf = malloc (n), *banded_conf = malloc (n),
      *band_conf = malloc (n);
  static const SdAlgorithm methods[] = { SD_ALGORITHM_SGM, SD_ALGORITHM_HBP,
    SD_ALGORITHM_TILED_BP
  };
  for (size_t m = 0; m < 3; m++) {
    SdParams p;
    sd_params_init (&p);
    p.algorithm = methods[m];
    p.num_disparities = 32;
    p.confidence = true;
    const char *name = sd_enum_to_nick (sd_algorithm_entries, p.algorithm);
    run (&p, &left, &right, whole, whole_conf);
    /* band rows that cover the frame: no bands */
    p.band_rows = h;
    run (&p, &left, &right, banded, banded_conf);
    SD_CHECK (!memcmp (whole, banded, n * 2)
        && !memcmp (whole_conf, banded_conf, n), "%s: band-rows %d changed "
        "the output", name, h);
    if (p.algorithm == SD_ALGORITHM_SGM) {
      /* exact bands (sd-band.h): the whole frame's output, with each of
       * the settings the sweeps handle apart, down to bands of one row */
      static const char *settings[][6] = { {NULL}, {"paths", "4"},
        {"p2-adaptive", "on"}, {"uniqueness", "15", "lr-check", "-1"},
        {"min-disparity", "3", "paths", "4", "p2", "300"}
      };
      static const int band_rows[] = { rows, 7, 1 };
      for (size_t v = 0; v < sizeof (settings) / sizeof (settings[0]); v++) {
        SdParams q = p;
        q.band_rows = 0;
        char msg[256];
        for (int i = 0; i < 6 && settings[v][i]; i += 2)
          SD_CHECK (sd_params_set_from_string (&q, settings[v][i],
                  settings[v][i + 1], msg, sizeof (msg)), "%s", msg);
        const char *what = settings[v][0] ? settings[v][0] : "defaults";
        run (&q, &left, &right, whole, whole_conf);
        for (size_t r = 0; r < sizeof (band_rows) / sizeof (int); r++) {
          q.band_rows = band_rows[r];
          run (&q, &left, &right, banded, banded_conf);
          SD_CHECK (!memcmp (whole, banded, n * 2)
              && !memcmp (whole_conf, banded_conf, n), "sgm %s: bands of "
              "%d rows changed the output", what, band_rows[r]);
        }
      }
      continue;
    }

    /* each band is its own image up to hole filling and the guided
     * median, which take the whole frame (a speckle may span bands, the
     * median's samples reach across their edges): bands without them,
     * then with both (auto's left-right check and adaptive P2 follow
     * fill-holes: pinned to what the finished frame has) */
    p.lr_check = sd_params_lr_check (&p);
    p.p2_adaptive = sd_params_p2_adaptive (&p) ? SD_P2_ADAPTIVE_ON :
        SD_P2_ADAPTIVE_OFF;
    const SdFillHoles fill = p.fill_holes;
    p.fill_holes = SD_FILL_HOLES_OFF;
    p.guided_median = false;
    p.band_rows = rows;
    run (&p, &left, &right, banded, banded_conf);
    SD_CHECK (memcmp (whole, banded, n * 2), "%s: bands of %d rows gave the "
        "whole frame's output", name, rows);
    for (int k = 0; k < sd_band_count (h, rows); k++) {
      const SdBand b = sd_band_get (h, rows, k);
      SdParams q = p;
      q.band_rows = 0;
      const SdPlane bl = { sp.left + (size_t) b.in_y0 * w, w, b.in_height,
        (size_t) w, SD_PIXEL_GRAY8
      };
      const SdPlane br = { sp.right + (size_t) b.in_y0 * w, w, b.in_height,
        (size_t) w, SD_PIXEL_GRAY8
      };
      run (&q, &bl, &br, band_out, band_conf);
      const size_t skip = (size_t) (b.keep_y0 - b.in_y0) * w;
      const size_t at = (size_t) b.keep_y0 * w;
      const size_t count = (size_t) b.keep_height * w;
      SD_CHECK (!memcmp (banded + at, band_out + skip, count * 2)
          && !memcmp (banded_conf + at, band_conf + skip, count),
          "%s: band %d (rows %d+%d of %d+%d) is not its own image's output",
          name, k, b.keep_y0, b.keep_height, b.in_y0, b.in_height);
    }
    p.fill_holes = fill;
    p.guided_median = true;
    run (&p, &left, &right, band_out, band_conf);
    if (sd_params_fill_holes (&p))
      sd_output_fill_holes (&p, banded, banded_conf, w, h);
    sd_output_guided_median (banded, sp.left, w, h);
    SD_CHECK (!memcmp (banded, band_out, n * 2)
        && !memcmp (banded_conf, band_conf, n), "%s: bands with fill-holes "
        "and the guided median are not the bands finished as one frame",
        name);
  }
  free (whole);
  free (banded);
  free (band_out);
  free (whole_conf);
  free (banded_conf);
  free (band_conf);
  sd_synth_free (&sp);
}

/* max-device-memory on the cpu backends (hbp and tiled-bp, band-rows 0),
 * from a bound the whole frame fits down by 30 % at a time: the frame
 * stays whole, then is cut into more and more bands, each time the same
 * output as those band rows given by hand, until not even bands of one
 * row fit, a clear error. */
static void
test_memory_bound (void)
{
  const int w = 96, h = 320;
  SdSynthPair sp;
  SD_CHECK (sd_synth_demo (&sp, w, h), "rendering");
  const SdPlane left = { sp.left, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  const SdPlane right = { sp.right, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  const size_t n = (size_t) w * h;
  uint16_t *bounded = malloc (n * 2), *by_hand = malloc (n * 2);
  uint16_t *whole = malloc (n * 2);
  SdPlane out = { bounded, w, h, (size_t) w * 2, SD_PIXEL_GRAY16 };
  static const char *backends[] = { "cpu", "reference" };
  static const SdAlgorithm methods[] = { SD_ALGORITHM_HBP,
    SD_ALGORITHM_TILED_BP, SD_ALGORITHM_SGM
  };
  for (size_t b = 0; b < 2; b++)
    for (size_t m = 0; m < 3; m++) {
      const bool sgm = methods[m] == SD_ALGORITHM_SGM;
      /* the reference computes sgm whole (sd-band.h) */
      if (sgm && strcmp (backends[b], "reference") == 0)
        continue;
      SdParams p;
      sd_params_init (&p);
      p.algorithm = methods[m];
      /* sgm's volumes are a few bytes a cell: 64 disparities make them
       * about 10 MB */
      p.num_disparities = sgm ? 64 : 16;
      const char *name = sd_enum_to_nick (sd_algorithm_entries, p.algorithm);
      SdError err;
      SdEngine *e = sd_engine_new (backends[b], 0, &p, &err);
      SD_CHECK (e, "%s", err.message);
      if (!e)
        continue;
      int last_rows = 0, banded = 0;
      SdStatus st = SD_OK;
      for (int mb = 64; st == SD_OK && mb >= 1; mb = mb * 7 / 10) {
        p.max_device_memory = mb;
        out.data = bounded;
        st = sd_engine_set_params (e, &p, &err);
        st = st ? st : sd_engine_process (e, &left, &right, &out, NULL, &err);
        if (st != SD_OK)
          break;
        const int rows = sd_engine_band_rows (e);
        if (mb == 64)
          memcpy (whole, bounded, n * 2);
        /* sgm's bands are exact */
        SD_CHECK (!sgm || !memcmp (bounded, whole, n * 2), "%s sgm: the "
            "bands of %d rows for %d MB differ from the whole frame",
            backends[b], rows, mb);
        SD_CHECK (mb == 64 ? rows == 0 : rows == last_rows
            || (rows > 0 && (!last_rows || rows < last_rows)), "%s %s, "
            "max-device-memory %d MB: bands of %d rows after %d", backends[b],
            name, mb, rows, last_rows);
        if (rows && rows != last_rows) {
          banded++;
          SdParams q = p;
          q.max_device_memory = 0;
          q.band_rows = rows;
          SdEngine *hand = sd_engine_new (backends[b], 0, &q, &err);
          out.data = by_hand;
          SD_CHECK (hand && sd_engine_process (hand, &left, &right, &out,
                  NULL, &err) == SD_OK && !memcmp (bounded, by_hand, n * 2),
              "%s %s: the bands chosen for %d MB differ from band-rows %d",
              backends[b], name, mb, rows);
          sd_engine_free (hand);
        }
        last_rows = rows;
      }
      printf ("%s %s: %d band heights, down to %d rows; then at %d MB: %s\n",
          backends[b], name, banded, last_rows, p.max_device_memory,
          st ? err.message : "none");
      SD_CHECK (banded > 0 && st == SD_ERROR_OUT_OF_MEMORY
          && strstr (err.message, "max-device-memory"), "%s %s: %d band "
          "heights, then %s", backends[b], name, banded, st ? err.message :
          "no error");
      sd_engine_free (e);
    }
  free (bounded);
  free (by_hand);
  free (whole);
  sd_synth_free (&sp);
}

static void
test_accuracy (const char *data_dir)
{
  static const char *sets[] = { "mb2001_tsukuba", "mb2001_venus",
    "mb2003_teddy_quarter", "mb2003_cones_quarter", "mb2003_teddy_half",
    "mb2003_cones_half"
  };
  /* hbp's coarse levels span the frame, a band's only the band: 1.27
   * points on Cones half since the left edge's rule and the tight check
   * where holes are filled (whole 10.78 -> 10.17, bands 11.72 -> 11.44;
   * docs/algorithms.md, Bands) */
  const double allowed = 1.5;
  printf ("%-22s %-4s %6s %12s %12s\n", "set", "", "bands", "whole bad>1",
      "bands bad>1");
  for (size_t i = 0; i < sizeof (sets) / sizeof (sets[0]); i++) {
    SdStereoSet set;
    char msg[256];
    if (!sd_stereo_set_open (&set, data_dir, sets[i], msg, sizeof (msg))) {
      SD_CHECK (0, "%s", msg);
      continue;
    }
    SdParams p;
    sd_params_init (&p);
    p.algorithm = SD_ALGORITHM_HBP;
    p.num_disparities = set.suggested_disparities;
    SdAccuracy whole, banded;
    SdError err;
    const bool ok = sd_stereo_set_run (&set, "cpu", &p, &whole, &err);
    SD_CHECK (ok, "%s: %s", sets[i], err.message);
    p.band_rows = set.left->plane.height / 4;
    SD_CHECK (sd_stereo_set_run (&set, "cpu", &p, &banded, &err),
        "%s: %s", sets[i], err.message);
    printf ("%-22s %-4s %6d %12.2f %12.2f\n", sets[i], "hbp", p.band_rows,
        whole.bad1, banded.bad1);
    SD_CHECK (!ok || banded.bad1 <= whole.bad1 + allowed, "%s hbp: bands of "
        "%d rows cost %.2f points of bad > 1", sets[i], p.band_rows,
        banded.bad1 - whole.bad1);
    sd_stereo_set_free (&set);
  }
}

int
main (int argc, char **argv)
{
  if (argc < 2) {
    fprintf (stderr, "usage: %s DATA_DIR\n", argv[0]);
    return 2;
  }
  test_geometry ();
  test_stitching ();
  test_memory_bound ();
  test_accuracy (argv[1]);
  return sd_test_exit ("test-bands");
}
