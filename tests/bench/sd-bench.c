/* sd-bench: runs the stereo engine on an image pair, a Middlebury set or the
 * synthetic demo scene; times it, scores it against ground truth, and
 * writes the disparity (output contract) and a colour preview. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "sd-colormap.h"
#include "sd-engine.h"
#include "sd-eval.h"
#include "sd-synth.h"

/* The CUDA timings, in builds with the CUDA backend (SD_HAVE_CUDA). */
#ifdef SD_HAVE_CUDA
#include "../../cuda/sd-cuda.h"
#endif

static void
usage (FILE * f)
{
  fprintf (f,
      "usage: sd-bench (--left FILE --right FILE [--gt FILE --gt-divisor N]"
      " | --set DIR | --synthetic WxH)\n"
      "                [--backend auto|cpu|cuda|reference] [--device N] [--repeat N]\n"
      "                [--warmup N]\n"
      "                [--out FILE.png|pgm] [--color FILE.png|ppm]\n"
      "                [--confidence FILE.png|pgm]\n"
      "                [--save-pair DIR]\n"
      "                [--calibration FILE [--calibration-right FILE]]\n"
      "                [--<parameter> VALUE ...]\n");
  fprintf (f, "Parameters (the element's property names):\n");
  for (size_t i = 0; i < sd_param_count; i++)
    fprintf (f, "  --%-18s %s\n", sd_param_descs[i].name,
        sd_param_descs[i].blurb);
  fprintf (f,
      "--set DIR reads a set folder of shared/data/stereo or stereo-extra\n"
      "(its sets.tsv is in the folder above); num-disparities then defaults\n"
      "to the set's suggested count.  Images are PNG, PGM or PPM.  --out\n"
      "writes 16-bit PNG (FILE.png) or PGM: value = 16 * d, 0 = invalid;\n"
      "--color writes PNG or PPM.  --confidence computes the confidence\n"
      "too (in every timing) and writes it as 8-bit PNG or PGM: 0 = no\n"
      "match, 255 = most certain.\n"
      "--calibration undistorts and rectifies the pair first, as the\n"
      "element's property of that name does (OpenCV YAML/XML, or a ROS\n"
      "camera_info pair with --calibration-right).\n"
      "With --repeat above 1 the timed runs follow --warmup untimed ones.\n"
      "With --repeat above 1 the pair is also run --repeat times with two\n"
      "pairs in flight (sd_engine_submit / sd_engine_collect): the rate an\n"
      "application or the element gets.\n"
      "With the CUDA backend and --repeat above 1, the pipeline is also timed\n"
      "with CUDA events (--warmup runs, then max(--repeat, 50) runs;\n"
      "medians): device memory\n"
      "in and out (kernel time) and host memory in and out (end to end).\n");
}

static double
now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static bool
write_color (const char *path, const uint16_t * disp, int w, int h,
    int max_value, char *msg, size_t size)
{
  SdImage *img = sd_image_new (w, h, SD_PIXEL_RGB);
  if (!img) {
    snprintf (msg, size, "out of memory");
    return false;
  }
  uint8_t table[256][3];
  sd_colormap_table (SD_COLORMAP_TURBO, table);
  for (int y = 0; y < h; y++) {
    uint8_t *row = sd_plane_row (&img->plane, y);
    for (int x = 0; x < w; x++) {
      uint16_t v = disp[(size_t) y * w + x];
      int i = (int) ((long) v * 255 / (max_value > 0 ? max_value : 1));
      if (i > 255)
        i = 255;
      if (v == 0)
        row[3 * x] = row[3 * x + 1] = row[3 * x + 2] = 0;
      else
        memcpy (row + 3 * x, table[i], 3);
    }
  }
  bool ok = sd_image_write (path, &img->plane, msg, size);
  sd_image_free (img);
  return ok;
}

static bool
save_pair (const char *dir, const SdSynthPair * pair, char *msg, size_t size)
{
  char path[1024];
  mkdir (dir, 0755);
  SdPlane p = { pair->left, pair->width, pair->height, (size_t) pair->width,
    SD_PIXEL_GRAY8
  };
  snprintf (path, sizeof (path), "%s/left.pgm", dir);
  if (!sd_image_write (path, &p, msg, size))
    return false;
  p.data = pair->right;
  snprintf (path, sizeof (path), "%s/right.pgm", dir);
  if (!sd_image_write (path, &p, msg, size))
    return false;
  p.data = pair->gt;
  p.format = SD_PIXEL_FLOAT;
  p.stride = sizeof (float) * pair->width;
  snprintf (path, sizeof (path), "%s/gt.pfm", dir);
  return sd_image_write (path, &p, msg, size);
}

#ifdef SD_HAVE_CUDA
/* The CUDA pipeline's own timings of the pair: device memory in and out,
 * host memory in and out, and a whole frame's stages, over at least 50
 * runs after warmup.  False on an error, said on stderr. */
static bool
print_cuda_timings (int device, const SdParams * params,
    const SdRectification * rect, const SdPlane * left,
    const SdPlane * right, int warmup, int repeat)
{
  SdError err = { 0 };
  SdCudaTimings t;
  const int runs = repeat > 50 ? repeat : 50;
  const bool sgm = params->algorithm == SD_ALGORITHM_SGM;
  SdCudaPipeline *pl = sd_cuda_pipeline_new (device, &err);
  if (!pl || (rect && sd_cuda_pipeline_set_rectification (pl, rect,
              &err) != SD_OK)
      || sd_cuda_pipeline_time (pl, params, left, right, warmup, runs, &t,
          &err) != SD_OK) {
    fprintf (stderr, "sd-bench: %s\n", err.message);
    sd_cuda_pipeline_free (pl);
    return false;
  }
  const double updates = (double) left->width * left->height *
      params->num_disparities * params->paths;
  printf ("cuda: %s\n", sd_cuda_pipeline_device_name (pl));
  printf ("cuda time: device memory in and out: median %.3f ms, min %.3f "
      "ms", t.device_median, t.device_min);
  if (sgm)
    printf (" (%.2f G path-cell updates/s)",
        updates / t.device_median * 1e-6);
  printf ("; host memory in and out: median %.3f ms, min %.3f ms (CUDA "
      "events), median %.3f ms (wall clock); %d runs after %d warm-up "
      "runs; device memory %.0f MB", t.e2e_median, t.e2e_min,
      t.wall_median, t.runs, warmup, t.device_bytes / 1048576.0);
  if (sgm)
    printf ("; %s path volumes, %.0f MB",
        t.eight_bit ? "8-bit" : "16-bit", t.volume_bytes / 1048576.0);
  if (t.band_rows)
    printf ("; bands of %d rows", t.band_rows);
  printf ("\n");
  if (sgm && !t.band_rows)
    printf ("cuda stages (device memory, medians): census %.3f ms, paths "
        "%.3f ms, WTA %.3f ms, refine %.3f ms\n",
        t.stage_median[0], t.stage_median[1], t.stage_median[2],
        t.stage_median[3]);
  sd_cuda_pipeline_free (pl);
  return true;
}
#endif

int
main (int argc, char **argv)
{
  const char *left_path = NULL, *right_path = NULL, *gt_path = NULL;
  const char *set_dir = NULL, *out_path = NULL, *color_path = NULL;
  const char *confidence_path = NULL;
  const char *backend = "auto", *pair_dir = NULL;
  const char *calib_path = NULL, *calib_right = NULL;
  int device = 0, repeat = 1, warmup = 5, synth_w = 0, synth_h = 0;
  double gt_divisor = 1;
  bool ndisp_given = false;
  char msg[512];
  SdParams params;
  sd_params_init (&params);

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp (a, "--help") || !strcmp (a, "-h")) {
      usage (stdout);
      return 0;
    }
    if (strncmp (a, "--", 2) != 0 || i + 1 >= argc) {
      fprintf (stderr, "sd-bench: '%s' needs a value\n", a);
      usage (stderr);
      return 2;
    }
    const char *v = argv[++i];
    if (!strcmp (a, "--left"))
      left_path = v;
    else if (!strcmp (a, "--right"))
      right_path = v;
    else if (!strcmp (a, "--gt"))
      gt_path = v;
    else if (!strcmp (a, "--gt-divisor"))
      gt_divisor = atof (v);
    else if (!strcmp (a, "--set"))
      set_dir = v;
    else if (!strcmp (a, "--synthetic")) {
      if (sscanf (v, "%dx%d", &synth_w, &synth_h) != 2 || synth_w < 1
          || synth_h < 1) {
        fprintf (stderr, "sd-bench: --synthetic wants WxH, not '%s'\n", v);
        return 2;
      }
    } else if (!strcmp (a, "--save-pair"))
      pair_dir = v;
    else if (!strcmp (a, "--backend"))
      backend = v;
    else if (!strcmp (a, "--device"))
      device = atoi (v);
    else if (!strcmp (a, "--repeat"))
      repeat = atoi (v) > 0 ? atoi (v) : 1;
    else if (!strcmp (a, "--warmup"))
      warmup = atoi (v) >= 0 ? atoi (v) : 0;
    else if (!strcmp (a, "--out"))
      out_path = v;
    else if (!strcmp (a, "--color"))
      color_path = v;
    else if (!strcmp (a, "--confidence"))
      confidence_path = v;
    else if (!strcmp (a, "--calibration"))
      calib_path = v;
    else if (!strcmp (a, "--calibration-right"))
      calib_right = v;
    else if (!sd_params_set_from_string (&params, a + 2, v, msg,
            sizeof (msg))) {
      fprintf (stderr, "sd-bench: %s\n", msg);
      return 2;
    } else if (!strcmp (a, "--num-disparities"))
      ndisp_given = true;
  }

  /* the input: a set, a pair of files, or the synthetic scene */
  SdStereoSet set = { 0 };
  SdSynthPair synth = { 0 };
  SdImage *left_img = NULL, *right_img = NULL;
  SdPlane left, right;
  float *gt = NULL;
  const char *source;
  if (set_dir) {
    if (!sd_stereo_set_load (&set, set_dir, msg, sizeof (msg))) {
      fprintf (stderr, "sd-bench: %s\n", msg);
      return 1;
    }
    left = set.left->plane;
    right = set.right->plane;
    gt = set.gt;
    source = set.name;
    if (!ndisp_given)
      params.num_disparities = set.suggested_disparities;
  } else if (synth_w) {
    if (!sd_synth_demo (&synth, synth_w, synth_h)) {
      fprintf (stderr, "sd-bench: out of memory for the synthetic scene\n");
      return 1;
    }
    left = (SdPlane) {
    synth.left, synth_w, synth_h, (size_t) synth_w, SD_PIXEL_GRAY8};
    right = left;
    right.data = synth.right;
    gt = synth.gt;
    source = "synthetic";
    if (pair_dir && !save_pair (pair_dir, &synth, msg, sizeof (msg))) {
      fprintf (stderr, "sd-bench: %s\n", msg);
      return 1;
    }
  } else if (left_path && right_path) {
    left_img = sd_image_read (left_path, msg, sizeof (msg));
    right_img = left_img ? sd_image_read (right_path, msg, sizeof (msg)) :
        NULL;
    if (!right_img) {
      fprintf (stderr, "sd-bench: %s\n", msg);
      return 1;
    }
    left = left_img->plane;
    right = right_img->plane;
    source = left_path;
    if (gt_path) {
      SdImage *g = sd_image_read (gt_path, msg, sizeof (msg));
      if (!g || g->plane.width != left.width || g->plane.height != left.height) {
        fprintf (stderr, "sd-bench: %s\n", g ? "ground truth size differs "
            "from the images" : msg);
        return 1;
      }
      gt = malloc (sizeof (float) * left.width * left.height);
      for (int y = 0; y < left.height; y++) {
        const uint8_t *row = sd_plane_row (&g->plane, y);
        for (int x = 0; x < left.width; x++) {
          double v = g->plane.format == SD_PIXEL_FLOAT ?
              ((const float *) row)[x] : g->plane.format == SD_PIXEL_GRAY16 ?
              ((const uint16_t *) row)[x] : row[x];
          gt[(size_t) y * left.width + x] = (float) (v / gt_divisor);
        }
      }
      sd_image_free (g);
    }
  } else {
    usage (stderr);
    return 2;
  }

  SdError err = { 0 };
  params.confidence = confidence_path != NULL;
  /* the count the engine would search, also for the timed pipeline */
  params.num_disparities = sd_params_disparities (&params, left.width);
  SdEngine *engine = sd_engine_new (backend, device, &params, &err);
  if (!engine) {
    fprintf (stderr, "sd-bench: %s\n", err.message);
    return 1;
  }
  const int w = left.width, h = left.height;
  SdRectification *rect = NULL;
  if (calib_path) {
    SdStereoCalib calib;
    if (!sd_stereo_calib_load (calib_path, calib_right, &calib, msg,
            sizeof (msg))
        || !(rect = sd_rectification_new (&calib, w, h, msg, sizeof (msg)))) {
      fprintf (stderr, "sd-bench: %s\n", msg);
      return 1;
    }
    if (sd_engine_set_rectification (engine, rect, &err) != SD_OK) {
      fprintf (stderr, "sd-bench: %s\n", err.message);
      return 1;
    }
  }
  uint16_t *disp = malloc (sizeof (uint16_t) * w * h);
  uint8_t *confidence = malloc ((size_t) w * h);
  double *times = malloc (sizeof (double) * repeat);
  SdPlane out = { disp, w, h, sizeof (uint16_t) * w, SD_PIXEL_GRAY16 };
  SdPlane conf = { confidence, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  SdPlane *conf_out = params.confidence ? &conf : NULL;
  const bool sgm = params.algorithm == SD_ALGORITHM_SGM;
  printf ("sd-bench: %s %dx%d, backend %s, %s, num-disparities %d, "
      "min-disparity %d, ", source, w, h, sd_engine_backend_name (engine),
      sd_enum_to_nick (sd_algorithm_entries, params.algorithm),
      params.num_disparities, params.min_disparity);
  if (sgm)
    printf ("paths %d, cost %s\n", params.paths,
        sd_enum_to_nick (sd_cost_entries, params.cost));
  else if (params.algorithm == SD_ALGORITHM_HBP)
    printf ("levels %d, iterations %d, %s messages\n",
        sd_params_bp_levels (&params, w, h), params.iterations,
        sd_enum_to_nick (sd_bp_precision_entries, params.bp_precision));
  else
    printf ("tile-size %d, outer-iterations %d, inner-iterations %d\n",
        params.tile_size, params.outer_iterations, params.inner_iterations);
  /* warm-up runs (not timed) where the pair is timed, so that the first
   * runs' page faults and the backend's first allocations stay out of the
   * times; a single run is an accuracy run */
  for (int r = 0; repeat > 1 && r < warmup; r++)
    if (sd_engine_process (engine, &left, &right, &out, conf_out, &err)
        != SD_OK) {
      fprintf (stderr, "sd-bench: %s\n", err.message);
      return 1;
    }
  for (int r = 0; r < repeat; r++) {
    double t0 = now_ms ();
    if (sd_engine_process (engine, &left, &right, &out, conf_out, &err)
        != SD_OK) {
      fprintf (stderr, "sd-bench: %s\n", err.message);
      return 1;
    }
    times[r] = now_ms () - t0;
  }
  qsort (times, (size_t) repeat, sizeof (double), compare_double);
  printf ("time: median %.3f ms, min %.3f ms over %d run%s (wall clock, "
      "host memory in and out)", times[repeat / 2], times[0], repeat,
      repeat > 1 ? "s" : "");
  if (sd_engine_band_rows (engine))
    printf ("; bands of %d rows", sd_engine_band_rows (engine));
  printf ("\n");
  const SdRowOffset rows = sd_engine_row_offset (engine);
  if (params.align_rows && !rows.measured)
    printf ("align-rows: no offset measured (%d patches agreed)\n",
        rows.patches);
  else if (params.align_rows)
    printf ("align-rows: the right view's rows sit %+.2f rows from the "
        "left's in the middle, turned %+.3f degrees, scaled %+.2f %% (%d "
        "patches); %s\n", rows.offset, sd_row_offset_degrees (&rows),
        100.0 * rows.scale, rows.patches,
        sd_engine_rows_moved (engine) ? "moved back" : "left alone");
  /* the timed pipeline below remaps as the engine does */
  SdRectification *timed_rect = sd_engine_rows_moved (engine) ?
      sd_rectification_realign_right (rect, w, h, rows.offset, rows.slope,
      rows.scale) :
      rect;
  if (repeat > 1) {
    /* the rate of a caller that keeps two pairs in the engine, as the
     * element does on CUDA: submit one, collect the one before */
    const double t0 = now_ms ();
    for (int r = 0; r <= repeat; r++) {
      if ((r < repeat
              && sd_engine_submit (engine, &left, &right, &err) != SD_OK)
          || (r > 0 && sd_engine_collect (engine, &out, conf_out, &err)
              != SD_OK)) {
        fprintf (stderr, "sd-bench: %s\n", err.message);
        return 1;
      }
    }
    const double per_pair = (now_ms () - t0) / repeat;
    printf ("pipelined: %.3f ms a pair, %.1f pairs/s over %d pairs (wall "
        "clock, two pairs in flight, host memory in and out)\n", per_pair,
        1000.0 / per_pair, repeat);
  }

  /* a single run is an accuracy run: no timing loop */
#ifdef SD_HAVE_CUDA
  if (repeat > 1 && !strcmp (sd_engine_backend_name (engine), "cuda")
      && !print_cuda_timings (device, &params, timed_rect, &left, &right,
          warmup, repeat))
    return 1;
#endif
  if (timed_rect != rect)
    sd_rectification_free (timed_rect);

  SdAccuracy a = sd_accuracy_score (disp, out.stride, gt, NULL, w, h);
  /* depth output is millimetres, not disparity: only its density scores */
  if (gt && params.output == SD_OUTPUT_DEPTH)
    printf ("accuracy: not scored (output=depth; the ground truth is "
        "disparity)\n");
  else if (gt) {
    /* the pixel count of bad>0.5 is the MEMOCODE contest's measure on
     * Tsukuba, whose ground truth is whole pixels */
    printf ("accuracy: bad>0.5 %.2f %% (%ld px), bad>1 %.2f %%, bad>2 %.2f "
        "%%, mae %.3f px, invalid %.2f %% of %ld ground-truth pixels; bad>1 "
        "%.2f %% of the estimated ones\n", a.bad05, lround (a.bad05 *
            a.gt_pixels / 100), a.bad1, a.bad2, a.mae, a.invalid,
        a.gt_pixels, a.bad1_valid);
  }
  printf ("density: invalid %.2f %% of all %ld pixels\n", a.invalid_all,
      (long) w * h);
  int status = 0;
  if (out_path) {
    if (sd_image_write (out_path, &out, msg, sizeof (msg)))
      printf ("wrote %s (16-bit: %s, 0 = invalid)\n", out_path,
          params.output == SD_OUTPUT_DEPTH ? "depth in millimetres" :
          "value = 16 * disparity");
    else {
      fprintf (stderr, "sd-bench: %s\n", msg);
      status = 1;
    }
  }
  if (confidence_path) {
    if (sd_image_write (confidence_path, &conf, msg, sizeof (msg)))
      printf ("wrote %s (8-bit confidence: 0 = no match, 255 = most "
          "certain)\n", confidence_path);
    else {
      fprintf (stderr, "sd-bench: %s\n", msg);
      status = 1;
    }
  }
  if (color_path) {
    int max_value = (params.min_disparity + params.num_disparities) * 16;
    if (write_color (color_path, disp, w, h, max_value, msg, sizeof (msg)))
      printf ("wrote %s (colour preview: turbo from 0 to %d px, black = "
          "invalid)\n", color_path, max_value / 16);
    else {
      fprintf (stderr, "sd-bench: %s\n", msg);
      status = 1;
    }
  }
  sd_engine_free (engine);
  sd_rectification_free (rect);
  free (disp);
  free (confidence);
  free (times);
  if (gt_path)
    free (gt);
  sd_stereo_set_free (&set);
  sd_synth_free (&synth);
  sd_image_free (left_img);
  sd_image_free (right_img);
  return status;
}
