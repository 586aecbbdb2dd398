/* Pairs in flight (sd_engine_submit, sd_engine_collect) give, pair for
 * pair, what sd_engine_process gives on the same backend (the confidence
 * too, for the pairs that ask for one): with two pairs in
 * flight, parameters, sizes and formats changing between submits, the
 * caller overwriting its inputs as soon as submit returns, the engine
 * moving to another backend under its pairs (backend auto), discarded
 * pairs, and the refusals of calls out of order.
 *
 * usage: test-async [BACKEND]   cpu (the default) or cuda; without a CUDA
 * device the cuda run exits 77 (skipped). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sd-engine.h"
#include "sd-synth.h"
#include "sd-test.h"

/* One pair to compute: its images in some format, its parameters, and the
 * disparity sd_engine_process gives for them. */
typedef struct
{
  int width, height;
  SdPixelFormat format;
  size_t stride;
  uint8_t *left, *right;
  SdParams params;
  uint16_t *expect;
  uint8_t *expect_confidence;   /* when params.confidence */
} Job;

/* gray (packed) into a plane of format with padded rows; colour formats get
 * the gray value in every byte of a pixel. */
static void
fill_plane (uint8_t * dst, size_t stride, const uint8_t * gray, int w, int h,
    SdPixelFormat format)
{
  const int bpp = sd_pixel_layout (format)->bytes_per_pixel;
  memset (dst, 0xa5, stride * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint8_t *p = dst + (size_t) y * stride + (size_t) x * bpp;
      const uint8_t v = gray[(size_t) y * w + x];
      if (format == SD_PIXEL_GRAY16) {
        const uint16_t q = (uint16_t) (v << 8 | 0x5a);
        memcpy (p, &q, sizeof (q));
      } else {
        memset (p, v, bpp);
      }
    }
}

static SdPlane
job_plane (const Job * job, uint8_t * data)
{
  SdPlane plane = { data, job->width, job->height, job->stride, job->format };
  return plane;
}

static SdPlane
out_plane (uint16_t * data, int w, int h)
{
  SdPlane plane = { data, w, h, (size_t) w * 2, SD_PIXEL_GRAY16 };
  return plane;
}

/* The job's confidence plane over data, or NULL when it has none. */
static SdPlane *
confidence_plane (const Job * job, uint8_t * data, SdPlane * plane)
{
  *plane = (SdPlane) {
  data, job->width, job->height, (size_t) job->width, SD_PIXEL_GRAY8};
  return job->params.confidence ? plane : NULL;
}

/* Renders the demo scene at w x h into the job's planes (seed varies the
 * texture) and computes the expected disparity with reference. */
static bool
job_init (Job * job, SdEngine * reference, int w, int h, SdPixelFormat format,
    const SdParams * params, uint32_t seed)
{
  SdSynthPair scene;
  const SdSynthLayer layers[] = {
    {0, 0, 0, 0, 2, 0.05, 0},
    {w / 4, h / 4, w * 3 / 4, h * 3 / 4, 9, 0, 0},
  };
  if (!sd_synth_render (&scene, w, h, layers, 2, seed))
    return false;
  job->width = w;
  job->height = h;
  job->format = format;
  job->stride = (size_t) w * sd_pixel_layout (format)->bytes_per_pixel + 5;
  job->left = malloc (job->stride * h);
  job->right = malloc (job->stride * h);
  job->expect = malloc ((size_t) w * h * 2);
  job->expect_confidence = malloc ((size_t) w * h);
  job->params = *params;
  fill_plane (job->left, job->stride, scene.left, w, h, format);
  fill_plane (job->right, job->stride, scene.right, w, h, format);
  sd_synth_free (&scene);

  SdError err;
  SdPlane l = job_plane (job, job->left), r = job_plane (job, job->right);
  SdPlane o = out_plane (job->expect, w, h), c;
  SD_CHECK (sd_engine_set_params (reference, params, &err) == SD_OK
      && sd_engine_process (reference, &l, &r, &o,
          confidence_plane (job, job->expect_confidence, &c), &err) == SD_OK,
      "reference %dx%d: %s", w, h, err.message);
  return true;
}

static void
job_clear (Job * job)
{
  free (job->left);
  free (job->right);
  free (job->expect);
  free (job->expect_confidence);
}

static void
submit (SdEngine * e, Job * job)
{
  SdError err;
  SdPlane l = job_plane (job, job->left), r = job_plane (job, job->right);
  SD_CHECK (sd_engine_set_params (e, &job->params, &err) == SD_OK, "%s",
      err.message);
  SD_CHECK (sd_engine_submit (e, &l, &r, &err) == SD_OK, "submit %dx%d: %s",
      job->width, job->height, err.message);
}

/* Collects the oldest pair, which must be job's, and compares it. */
static void
collect (SdEngine * e, const Job * job, const char *what)
{
  SdError err;
  const int n = job->width * job->height;
  uint16_t *got = malloc ((size_t) n * 2);
  uint8_t *got_confidence = malloc ((size_t) n);
  SdPlane o = out_plane (got, job->width, job->height), c;
  memset (got, 0x5a, (size_t) n * 2);
  memset (got_confidence, 0x5a, (size_t) n);
  SD_CHECK (sd_engine_collect (e, &o, confidence_plane (job, got_confidence,
              &c), &err) == SD_OK, "%s: %s", what, err.message);
  long differ = 0, differ_confidence = 0;
  for (int i = 0; i < n; i++) {
    differ += got[i] != job->expect[i];
    differ_confidence += job->params.confidence
        && got_confidence[i] != job->expect_confidence[i];
  }
  SD_CHECK (differ == 0, "%s: %ld of %d pixels differ from process", what,
      differ, n);
  SD_CHECK (differ_confidence == 0, "%s: %ld of %d confidences differ from "
      "process", what, differ_confidence, n);
  free (got);
  free (got_confidence);
}

/* The caller may overwrite its inputs once submit returns. */
static void
scribble (Job * job)
{
  memset (job->left, 0x33, job->stride * job->height);
  memset (job->right, 0xcc, job->stride * job->height);
}

enum
{ N_JOBS = 9 };

/* Pairs of changing size, format and parameters, two in flight: submit one,
 * collect the one before. */
static void
check_double_buffering (const char *backend)
{
  static const struct
  {
    int w, h;
    SdPixelFormat format;
  } shapes[N_JOBS] = {
    {64, 48, SD_PIXEL_GRAY8}, {64, 48, SD_PIXEL_GRAY8},
    {41, 23, SD_PIXEL_GRAY8}, {41, 23, SD_PIXEL_RGB},
    {64, 48, SD_PIXEL_GRAY8}, {64, 48, SD_PIXEL_GRAY16},
    {97, 61, SD_PIXEL_GRAY8}, {97, 61, SD_PIXEL_XBGR},
    {97, 61, SD_PIXEL_BGRX},
  };
  SdParams p[N_JOBS];
  for (int i = 0; i < N_JOBS; i++) {
    sd_params_init (&p[i]);
    p[i].num_disparities = 16;
  }
  p[1].num_disparities = 32;
  p[1].cost = SD_COST_AD;
  p[1].lr_check = SD_LR_CHECK_OFF;
  p[3].prefilter = SD_PREFILTER_MEDIAN_RANK;
  p[4].algorithm = SD_ALGORITHM_HBP;
  p[5].num_disparities = 48;
  p[5].paths = 4;
  p[5].fill_holes = true;
  p[6].num_disparities = 64;
  p[7].num_disparities = 64;
  p[7].p2 = 300;                /* 16-bit path sums */
  p[8].num_disparities = 128;   /* more scratch than the pair before */
  /* with a confidence and without, in flight together */
  p[2].confidence = p[4].confidence = p[5].confidence = true;
  p[8].confidence = true;

  SdError err;
  SdEngine *reference = sd_engine_new (backend, 0, &p[0], &err);
  SdEngine *e = sd_engine_new (backend, 0, &p[0], &err);
  SD_CHECK (reference && e, "%s", err.message);
  if (!reference || !e)
    return;
  Job jobs[N_JOBS];
  for (int i = 0; i < N_JOBS; i++)
    SD_CHECK (job_init (&jobs[i], reference, shapes[i].w, shapes[i].h,
            shapes[i].format, &p[i], 10 + i), "out of memory");

  char what[64];
  for (int i = 0; i < N_JOBS; i++) {
    submit (e, &jobs[i]);
    scribble (&jobs[i]);
    SD_CHECK_INT (sd_engine_in_flight (e), i == 0 ? 1 : 2);
    if (i > 0) {
      snprintf (what, sizeof (what), "%s pair %d", backend, i - 1);
      collect (e, &jobs[i - 1], what);
    }
  }
  snprintf (what, sizeof (what), "%s pair %d", backend, N_JOBS - 1);
  collect (e, &jobs[N_JOBS - 1], what);
  SD_CHECK_INT (sd_engine_in_flight (e), 0);

  for (int i = 0; i < N_JOBS; i++)
    job_clear (&jobs[i]);
  sd_engine_free (reference);
  sd_engine_free (e);
}

/* Out-of-order calls are refused with a sentence and change nothing;
 * discarded pairs leave the engine usable. */
static void
check_refusals (const char *backend)
{
  SdParams p;
  sd_params_init (&p);
  p.num_disparities = 16;
  SdError err;
  SdEngine *reference = sd_engine_new (backend, 0, &p, &err);
  SdEngine *e = sd_engine_new (backend, 0, &p, &err);
  SD_CHECK (reference && e, "%s", err.message);
  if (!reference || !e)
    return;
  Job a, b;
  job_init (&a, reference, 40, 30, SD_PIXEL_GRAY8, &p, 1);
  job_init (&b, reference, 40, 30, SD_PIXEL_GRAY8, &p, 2);
  uint16_t out[40 * 30];
  SdPlane o = out_plane (out, 40, 30);
  SdPlane small = out_plane (out, 20, 30);
  SdPlane l = job_plane (&a, a.left), r = job_plane (&a, a.right);
  SdPlane narrow = l;
  narrow.width = 39;

  SD_CHECK (sd_engine_collect (e, &o, NULL, &err) == SD_ERROR_INVALID_ARGUMENT,
      "collect with nothing in flight accepted");
  SD_CHECK (strstr (err.message, "no pair is in flight") != NULL, "%s",
      err.message);
  SD_CHECK (sd_engine_submit (e, &narrow, &r, &err) ==
      SD_ERROR_INVALID_ARGUMENT, "left and right of other sizes accepted");
  SD_CHECK_INT (sd_engine_in_flight (e), 0);

  submit (e, &a);
  submit (e, &b);
  SD_CHECK (sd_engine_submit (e, &l, &r, &err) == SD_ERROR_INVALID_ARGUMENT,
      "a third pair in flight accepted");
  SD_CHECK (strstr (err.message, "collect one") != NULL, "%s", err.message);
  SD_CHECK (sd_engine_process (e, &l, &r, &o, NULL, &err) ==
      SD_ERROR_INVALID_ARGUMENT, "process with pairs in flight accepted");
  SD_CHECK (strstr (err.message, "2 pairs are in flight") != NULL, "%s",
      err.message);
  SD_CHECK (sd_engine_collect (e, &small, NULL, &err) == SD_ERROR_INVALID_ARGUMENT,
      "an output of the wrong size accepted");
  SD_CHECK (strstr (err.message, "40x30") != NULL, "%s", err.message);
  SD_CHECK_INT (sd_engine_in_flight (e), 2);
  collect (e, &a, "after the refusals");

  /* the pair left in flight is dropped; the engine goes on */
  sd_engine_discard (e);
  SD_CHECK_INT (sd_engine_in_flight (e), 0);
  SD_CHECK (sd_engine_process (e, &l, &r, &o, NULL, &err) == SD_OK, "%s",
      err.message);
  SD_CHECK (memcmp (out, a.expect, sizeof (out)) == 0,
      "process after discard differs");

  /* freed with a pair in flight: no wait forever, no crash */
  submit (e, &b);
  sd_engine_free (e);
  job_clear (&a);
  job_clear (&b);
  sd_engine_free (reference);
}

/* backend=auto moves to the backend that runs the new parameters; the pairs
 * already in flight keep the backend and parameters they were submitted
 * with.  On a machine with a GPU this moves between CUDA (sgm) and the CPU
 * (tiled-bp, while CUDA has no kernels for it); elsewhere it stays on the
 * CPU and checks the same rule. */
static void
check_backend_moves (void)
{
  SdParams sgm, tiled;
  sd_params_init (&sgm);
  sgm.num_disparities = 16;
  sgm.confidence = true;        /* settled pairs keep theirs */
  tiled = sgm;
  tiled.confidence = false;
  tiled.algorithm = SD_ALGORITHM_TILED_BP;
  SdError err;
  SdEngine *reference = sd_engine_new ("auto", 0, &sgm, &err);
  SdEngine *e = sd_engine_new ("auto", 0, &sgm, &err);
  SD_CHECK (reference && e, "%s", err.message);
  if (!reference || !e)
    return;
  Job jobs[4];
  for (int i = 0; i < 4; i++)
    job_init (&jobs[i], reference, 48, 20 + i, SD_PIXEL_GRAY8,
        i % 2 ? &tiled : &sgm, 30 + i);

  char what[64];
  for (int i = 0; i < 4; i++) {
    submit (e, &jobs[i]);
    scribble (&jobs[i]);
    printf ("pair %d (%s) submitted to the %s backend\n", i,
        sd_enum_to_nick (sd_algorithm_entries, jobs[i].params.algorithm),
        sd_engine_backend_name (e));
    if (i > 0) {
      snprintf (what, sizeof (what), "auto pair %d", i - 1);
      collect (e, &jobs[i - 1], what);
    }
  }
  collect (e, &jobs[3], "auto pair 3");
  for (int i = 0; i < 4; i++)
    job_clear (&jobs[i]);
  sd_engine_free (reference);
  sd_engine_free (e);
}

int
main (int argc, char **argv)
{
  const char *backend = argc > 1 ? argv[1] : "cpu";
  SdParams p;
  sd_params_init (&p);
  SdError err;
  SdEngine *probe = sd_engine_new (backend, 0, &p, &err);
  if (!probe) {
    SD_CHECK (err.status == SD_ERROR_NO_DEVICE
        || err.status == SD_ERROR_NO_BACKEND, "%s", err.message);
    printf ("no %s backend here (%s): skipped\n", backend, err.message);
    return sd_test_failures ? 1 : SD_TEST_SKIP;
  }
  printf ("backend %s: %s\n", backend, sd_engine_is_async (probe) ?
      "asynchronous" : "synchronous (the engine computes in submit)");
  sd_engine_free (probe);

  check_double_buffering (backend);
  check_refusals (backend);
  check_backend_moves ();
  return sd_test_exit ("test-async");
}
