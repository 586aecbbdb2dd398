/* stereodepth on the CUDA backend: the element's output must be bit-identical
 * to the CPU engine's for the integer (SGM) pipeline, for every input
 * format, and backend=auto must pick CUDA.  Skips (77) where there is no
 * CUDA backend or no device. */
#include "sd-check.h"

#include <string.h>

#define W SD_CHECK_WIDTH
#define H SD_CHECK_HEIGHT

#define scene sd_check_scene

/* Runs one pair of the given formats through an element with the given
 * backend and checks the output against the CPU engine. */
static void
check_backend (const gchar * backend, GstVideoFormat lf, GstVideoFormat rf,
    const guint16 * ref)
{
  SdCheckPair p;
  GstBuffer *buf;

  sd_check_pair_init (&p, FALSE);
  gst_util_set_object_arg (G_OBJECT (p.element), "backend", backend);
  sd_check_set_caps (p.left, gst_video_format_to_string (lf), W, H);
  sd_check_set_caps (p.right, gst_video_format_to_string (rf), W, H);
  gst_harness_push (p.left, sd_check_frame_new (lf, scene.left, W, H, 0));
  gst_harness_push (p.right, sd_check_frame_new (rf, scene.right, W, H, 0));
  /* the pair may stay in flight until EOS */
  sd_check_finish (&p);
  buf = gst_harness_pull (p.left);
  fail_unless (buf != NULL, "no output from backend %s", backend);
  sd_check_assert_output (buf, ref, W, H);
  gst_buffer_unref (buf);
  sd_check_pair_clear (&p);
}

static guint16 *
cpu_reference (void)
{
  SdParams params;

  sd_check_params (&params);
  return sd_check_reference (&params, scene.left, scene.right, W, H);
}

GST_START_TEST (test_cuda_every_format)
{
  guint16 *ref = cpu_reference ();
  guint i, n;
  GstVideoFormat *formats = sd_check_formats (&n);

  for (i = 0; i < n; i++)
    check_backend ("cuda", formats[i], formats[(i + 5) % n], ref);
  g_free (formats);
  g_free (ref);
}

GST_END_TEST;

GST_START_TEST (test_auto_picks_cuda)
{
  guint16 *ref = cpu_reference ();
  gchar *choice = sd_check_auto_backend (scene.left, scene.right);

  fail_unless_equals_string (choice, "cuda");
  check_backend ("auto", GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_I420, ref);
  g_free (choice);
  g_free (ref);
}

GST_END_TEST;

/* Upstream is not live here, so auto keeps a pair in flight: it comes out
 * when the next one arrives, the last one at EOS, each as the CPU computes
 * it; a parameter change and new caps between pairs go with their pairs. */
GST_START_TEST (test_cuda_in_flight)
{
  SdParams params, params2;
  SdCheckImages *images;
  guint16 *ref2[2];
  SdCheckPair p;
  GstBuffer *buf;
  guint i;

  sd_check_params (&params);
  params2 = params;
  params2.num_disparities = 48;
  params2.paths = 4;
  images = sd_check_images_new (&params, 4);
  for (i = 0; i < 2; i++)
    ref2[i] = sd_check_reference (&params2, images[2 + i].left,
        images[2 + i].right, W, H);

  sd_check_pair_init (&p, FALSE);
  gst_util_set_object_arg (G_OBJECT (p.element), "backend", "cuda");
  sd_check_set_caps (p.left, "GRAY8", W, H);
  sd_check_set_caps (p.right, "GRAY8", W, H);
  sd_check_push_images (&p, &images[0], 0);
  sd_check_push_images (&p, &images[1], SD_CHECK_FRAME);
  /* out once the second pair went in */
  sd_check_expect_output (&p, 0, images[0].ref);
  g_object_set (p.element, "num-disparities", 48, "paths", 4, NULL);
  sd_check_push_images (&p, &images[2], 2 * SD_CHECK_FRAME);
  sd_check_push_images (&p, &images[3], 3 * SD_CHECK_FRAME);
  sd_check_set_caps (p.left, "GRAY8", W / 2, H / 2);
  sd_check_set_caps (p.right, "GRAY8", W / 2, H / 2);
  sd_check_push_sized (&p, scene.left, scene.right, W / 2, H / 2,
      4 * SD_CHECK_FRAME);
  sd_check_finish (&p);

  sd_check_expect_output (&p, SD_CHECK_FRAME, images[1].ref);
  for (i = 0; i < 2; i++)
    sd_check_expect_output (&p, (2 + i) * SD_CHECK_FRAME, ref2[i]);
  buf = gst_harness_pull (p.left);
  fail_unless (buf != NULL);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), 4 * SD_CHECK_FRAME);
  fail_unless_equals_int (gst_buffer_get_size (buf), W / 2 * H / 2 * 2);
  gst_buffer_unref (buf);
  sd_check_pair_clear (&p);
  sd_check_images_free (images, 4);
  for (i = 0; i < 2; i++)
    g_free (ref2[i]);
}

GST_END_TEST;

/* src_confidence on CUDA with two pairs in flight: each pair's confidence
 * is the CPU engine's, bit for bit, with its pair's timestamps. */
GST_START_TEST (test_cuda_confidence)
{
  SdParams params;
  SdCheckImages *images;
  SdCheckPair p;
  GstHarness *conf;
  guint i;

  sd_check_params (&params);
  images = sd_check_images_new (&params, 3);
  sd_check_pair_init_with (&p, FALSE, "pairs-in-flight", 2, NULL);
  gst_util_set_object_arg (G_OBJECT (p.element), "backend", "cuda");
  conf = gst_harness_new_with_element (p.element, NULL, "src_confidence");
  sd_check_set_caps (p.left, "GRAY8", W, H);
  sd_check_set_caps (p.right, "GRAY8", W, H);
  for (i = 0; i < 3; i++)
    sd_check_push_images (&p, &images[i], i * SD_CHECK_FRAME);
  sd_check_finish (&p);
  for (i = 0; i < 3; i++) {
    guint8 *ref;
    GstBuffer *buf;

    g_free (sd_check_reference_full (&params, images[i].left,
            images[i].right, W, H, &ref));
    sd_check_expect_output (&p, i * SD_CHECK_FRAME, images[i].ref);
    buf = gst_harness_pull (conf);
    fail_unless (buf != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), i * SD_CHECK_FRAME);
    /* rows of W bytes need no padding */
    fail_unless (gst_buffer_memcmp (buf, 0, ref, W * H) == 0,
        "pair %u: the confidence is not the CPU's", i);
    gst_buffer_unref (buf);
    g_free (ref);
  }
  gst_harness_teardown (conf);
  sd_check_pair_clear (&p);
  sd_check_images_free (images, 3);
}

GST_END_TEST;

/* The backend changed while playing, cuda (two pairs in flight) to cpu and
 * back: the pair in flight finishes on the GPU before the CPU takes the next,
 * no pair is lost, and every output is the CPU engine's. */
GST_START_TEST (test_backend_while_playing)
{
  static const gchar *const backends[] = { "cuda", "cpu", "cuda", "cpu" };
  SdParams params;
  SdCheckImages *images;
  SdCheckPair p;
  guint64 processed;
  guint i;

  sd_check_params (&params);
  images = sd_check_images_new (&params, 8);
  sd_check_pair_init (&p, FALSE);
  sd_check_set_caps (p.left, "GRAY8", W, H);
  sd_check_set_caps (p.right, "GRAY8", W, H);
  for (i = 0; i < 8; i++) {
    if (i % 2 == 0)
      gst_util_set_object_arg (G_OBJECT (p.element), "backend",
          backends[i / 2]);
    sd_check_push_images (&p, &images[i], i * SD_CHECK_FRAME);
  }
  sd_check_finish (&p);
  for (i = 0; i < 8; i++)
    sd_check_expect_output (&p, i * SD_CHECK_FRAME, images[i].ref);
  g_object_get (p.element, "frames-processed", &processed, NULL);
  fail_unless_equals_uint64 (processed, 8);
  sd_check_pair_clear (&p);
  sd_check_images_free (images, 8);
}

GST_END_TEST;

/* Two elements on the GPU in one process at once must not disturb each
 * other (one stream per engine, no process-wide state). */
GST_START_TEST (test_two_elements)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=20 "
      "pattern=snow ! video/x-raw,format=GRAY8,width=320,height=240 ! "
      "tee name=l videotestsrc num-buffers=20 pattern=snow ! "
      "video/x-raw,format=GRAY8,width=320,height=240 ! tee name=r "
      "stereodepth name=a backend=cuda ! fakesink "
      "stereodepth name=b backend=cuda ! fakesink "
      "l. ! queue ! a.sink_left r. ! queue ! a.sink_right "
      "l. ! queue ! b.sink_left r. ! queue ! b.sink_right", NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  const gchar *names[] = { "a", "b" };
  guint i;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  for (i = 0; i < 2; i++) {
    GstElement *sd = gst_bin_get_by_name (GST_BIN (pipeline), names[i]);
    guint64 processed;

    g_object_get (sd, "frames-processed", &processed, NULL);
    fail_unless_equals_uint64 (processed, 20);
    gst_object_unref (sd);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* max-device-memory below what a frame needs whole: the element cuts it
 * into bands, says so once on the bus with the band rows, and its output is
 * the CPU's with band-rows set to them. */
GST_START_TEST (test_cuda_bands)
{
  const gint w = 320, h = 400;
  SdSynthPair big;
  SdCheckPair p;
  SdParams params;
  GstBuffer *buf;
  gint rows;
  guint16 *ref;

  fail_unless (sd_synth_demo (&big, w, h));
  /* the whole frame needs about 150 MB at 128 disparities */
  sd_check_pair_init_with (&p, FALSE, "num-disparities", 128,
      "max-device-memory", 60, NULL);
  gst_util_set_object_arg (G_OBJECT (p.element), "backend", "cuda");
  buf = sd_check_run_one (&p, big.left, big.right, w, h);

  rows = sd_check_pop_band_warning (p.bus, "the GPU's memory", h);

  sd_check_params (&params);
  params.num_disparities = 128;
  params.band_rows = rows;
  ref = sd_check_reference (&params, big.left, big.right, w, h);
  sd_check_assert_output (buf, ref, w, h);
  g_free (ref);
  gst_buffer_unref (buf);
  sd_check_pair_clear (&p);
  sd_synth_free (&big);
}

GST_END_TEST;

/* A cuda-device-id beyond the machine's devices: an element error that
 * names it, not a crash or a silent fallback. */
GST_START_TEST (test_device_out_of_range)
{
  SdCheckPair p;
  GError *err = NULL;

  sd_check_pair_init (&p, FALSE);
  gst_util_set_object_arg (G_OBJECT (p.element), "backend", "cuda");
  g_object_set (p.element, "cuda-device-id", 1000, NULL);
  sd_check_set_caps (p.left, "GRAY8", W, H);
  sd_check_set_caps (p.right, "GRAY8", W, H);
  sd_check_push_sized (&p, scene.left, scene.right, W, H, 0);
  err = sd_check_wait_error (p.bus);
  fail_unless (strstr (err->message, "CUDA device 1000 does not exist"),
      "error '%s' does not name the device", err->message);
  g_error_free (err);
  sd_check_pair_clear (&p);
}

GST_END_TEST;

/* Gaps between pairs computed on the GPU, one and two pairs in flight: the
 * pairs before a gap are collected from the GPU before its frame goes. */
GST_START_TEST (test_cuda_gaps)
{
  sd_check_gaps ("cuda", 1);
  sd_check_gaps ("cuda", 2);
}

GST_END_TEST;

static Suite *
cuda_suite (void)
{
  Suite *s = suite_create ("stereodepth-cuda");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, sd_check_scene_setup, sd_check_scene_teardown);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cuda_every_format);
  tcase_add_test (tc, test_auto_picks_cuda);
  tcase_add_test (tc, test_cuda_in_flight);
  tcase_add_test (tc, test_cuda_confidence);
  tcase_add_test (tc, test_two_elements);
  tcase_add_test (tc, test_backend_while_playing);
  tcase_add_test (tc, test_device_out_of_range);
  tcase_add_test (tc, test_cuda_bands);
  tcase_add_test (tc, test_cuda_gaps);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  if (!sd_check_cuda_ready ())
    return 77;
  return gst_check_run_suite (cuda_suite (), "stereodepth-cuda", __FILE__);
}
