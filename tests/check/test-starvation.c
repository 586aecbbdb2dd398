/* stereodepth tests of an input that stops delivering (no frames, no EOS):
 * the timeout property, the warning that names the silent input, the frames
 * of the other input dropped and counted, pairing again when the silent
 * input comes back, and EOS when the other input ends meanwhile; live and
 * not live.  The watch counts in real (monotonic) time, so these tests wait
 * a little. */
#include "sd-check.h"

#include <string.h>

#define W SD_CHECK_WIDTH
#define H SD_CHECK_HEIGHT
#define FRAME SD_CHECK_FRAME
/* a short timeout for the tests that set one */
#define TIMEOUT (50 * GST_MSECOND)
/* pairs of test_slow_pairs_are_not_silence */
#define SLOW_PAIRS 4

static void
push (GstHarness * h, const guint8 * gray, GstClockTime pts)
{
  fail_unless_equals_int (gst_harness_push (h,
          sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8, gray, W, H, pts)),
      GST_FLOW_OK);
}

static guint64
frames_dropped (SdCheckPair * p)
{
  return sd_check_get_u64 (p->element, "frames-dropped");
}

static void
start (SdCheckPair * p, gboolean live, gint64 timeout)
{
  sd_check_pair_init (p, live);
  if (timeout != -1)
    g_object_set (p->element, "timeout", timeout, NULL);
  sd_check_set_caps (p->left, "GRAY8", W, H);
  sd_check_set_caps (p->right, "GRAY8", W, H);
}

/* Waits up to wait for a message of type and returns its text; NULL when
 * none came. */
static gchar *
wait_text (SdCheckPair * p, GstMessageType type, GstClockTime wait)
{
  GstMessage *msg = gst_bus_timed_pop_filtered (p->bus, wait, type);
  GError *err = NULL;
  gchar *text;

  if (!msg)
    return NULL;
  if (type == GST_MESSAGE_WARNING)
    gst_message_parse_warning (msg, &err, NULL);
  else
    gst_message_parse_info (msg, &err, NULL);
  text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  return text;
}

static void
expect_text (SdCheckPair * p, GstMessageType type, const gchar * start)
{
  gchar *text = wait_text (p, type, 5 * GST_SECOND);

  fail_unless (text != NULL, "no %s message",
      gst_message_type_get_name (type));
  fail_unless (g_str_has_prefix (text, start), "'%s' does not start with "
      "'%s'", text, start);
  g_free (text);
}

static void
expect_no_warning (SdCheckPair * p)
{
  gchar *text = wait_text (p, GST_MESSAGE_WARNING, 0);

  fail_unless (text == NULL, "unexpected warning: %s", text);
}

static void
wait_dropped (SdCheckPair * p, guint64 n)
{
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  while (frames_dropped (p) < n && g_get_monotonic_time () < end)
    g_usleep (1000);
  fail_unless_equals_uint64 (frames_dropped (p), n);
}

static void
pull_output (SdCheckPair * p)
{
  GstBuffer *buf = gst_harness_pull (p->left);

  fail_unless (buf != NULL, "no output");
  gst_buffer_unref (buf);
}

static guint16 *
reference (void)
{
  SdParams params;

  sd_check_params (&params);
  return sd_check_reference (&params, sd_check_scene.left,
      sd_check_scene.right, W, H);
}

/* Not live, timeout at its default: the element waits for the partner as
 * aggregators do, however long it takes, and says nothing. */
GST_START_TEST (test_not_live_waits)
{
  guint16 *ref = reference ();
  SdCheckPair p;

  start (&p, FALSE, -1);
  push (p.left, sd_check_scene.left, 0);
  g_usleep (300 * 1000);
  expect_no_warning (&p);
  fail_unless_equals_uint64 (frames_dropped (&p), 0);
  push (p.right, sd_check_scene.right, 0);
  sd_check_expect_output (&p, 0, ref);
  sd_check_pair_clear (&p);
  g_free (ref);
}

GST_END_TEST;

/* The silent input comes back: the frames of the other input that came
 * meanwhile were dropped and counted, and the next pair gives the right
 * disparity. */
static void
check_comes_back (SdCheckPair * p, guint n_meanwhile)
{
  guint16 *ref = reference ();
  const GstClockTime back = (n_meanwhile + 1) * FRAME;
  GstBuffer *buf;
  guint i;

  for (i = 1; i <= n_meanwhile; i++)
    push (p->left, sd_check_scene.left, i * FRAME);
  wait_dropped (p, 1 + n_meanwhile);

  push (p->right, sd_check_scene.right, back);
  expect_text (p, GST_MESSAGE_INFO, "sink_right delivers frames again");
  push (p->left, sd_check_scene.left, back);
  sd_check_expect_output (p, back, ref);
  fail_unless_equals_uint64 (frames_dropped (p), 1 + n_meanwhile);
  /* nothing came out for the dropped frames */
  buf = gst_harness_try_pull (p->left);
  fail_unless (buf == NULL);
  g_free (ref);
}

/* After the timeout (at least min_us) a warning names the silent input, the
 * waiting frame of the other is dropped, and that input keeps flowing until
 * the silent one comes back. */
static void
check_silence (gboolean live, gint64 timeout, gint64 min_us,
    guint n_meanwhile)
{
  SdCheckPair p;
  gint64 begin = g_get_monotonic_time ();

  start (&p, live, timeout);
  push (p.left, sd_check_scene.left, 0);
  expect_text (&p, GST_MESSAGE_WARNING, "sink_right has delivered no frame");
  fail_unless (g_get_monotonic_time () - begin >= min_us);
  wait_dropped (&p, 1);
  check_comes_back (&p, n_meanwhile);
  sd_check_pair_clear (&p);
}

/* Not live with the timeout set. */
GST_START_TEST (test_not_live_timeout)
{
  check_silence (FALSE, TIMEOUT, TIMEOUT / GST_USECOND, 3);
}

GST_END_TEST;

/* Live with the default timeout: not before four frames of silence. */
GST_START_TEST (test_live_default)
{
  check_silence (TRUE, -1, 4 * FRAME / GST_USECOND, 2);
}

GST_END_TEST;

/* Live with timeout 0: no warning, however long the silence; the frame
 * without a partner still goes when the latency passes. */
GST_START_TEST (test_live_never)
{
  SdCheckPair p;

  start (&p, TRUE, 0);
  push (p.left, sd_check_scene.left, 0);
  g_usleep (300 * 1000);
  expect_no_warning (&p);
  sd_check_pair_clear (&p);
}

GST_END_TEST;

/* The left input ends while the right one is silent: nothing more can be
 * paired, so the element sends EOS rather than waiting for the right. */
static void
check_ends (gboolean live)
{
  SdCheckPair p;
  GstEvent *event;
  gboolean eos = FALSE;

  start (&p, live, TIMEOUT);
  push (p.left, sd_check_scene.left, 0);
  push (p.left, sd_check_scene.left, FRAME);
  fail_unless (gst_harness_push_event (p.left, gst_event_new_eos ()));
  expect_text (&p, GST_MESSAGE_WARNING, "sink_right has delivered no frame");
  while (!eos && (event = gst_harness_pull_event (p.left))) {
    eos = GST_EVENT_TYPE (event) == GST_EVENT_EOS;
    gst_event_unref (event);
  }
  fail_unless (eos);
  fail_unless_equals_uint64 (frames_dropped (&p), 2);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 0);
  sd_check_pair_clear (&p);
}

GST_START_TEST (test_ends)
{
  check_ends (FALSE);
  check_ends (TRUE);
}

GST_END_TEST;

/* Not live, the timeout set: the right input is far ahead, so the left
 * one's older frame is dropped, and the right frame waits for its partner.
 * The right input starves nobody with a frame waiting, however long that
 * takes: no warning, and the pair forms when the left input catches up. */
GST_START_TEST (test_ahead_is_not_silent)
{
  guint16 *ref = reference ();
  SdCheckPair p;

  start (&p, FALSE, TIMEOUT);
  push (p.right, sd_check_scene.right, 10 * FRAME);
  push (p.left, sd_check_scene.left, 0);
  wait_dropped (&p, 1);
  g_usleep (4 * TIMEOUT / GST_USECOND);
  expect_no_warning (&p);
  push (p.left, sd_check_scene.left, 10 * FRAME);
  sd_check_expect_output (&p, 10 * FRAME, ref);
  expect_no_warning (&p);
  fail_unless_equals_uint64 (frames_dropped (&p), 1);
  sd_check_pair_clear (&p);
  g_free (ref);
}

GST_END_TEST;

/* Not live, the timeout a quarter of the time one pair of 320x240 frames
 * takes (measured on the first pair, so that it holds on a slow machine and
 * under valgrind): both inputs deliver the next pairs at once, so while the
 * last ones are computed the inputs deliver nothing for longer than the
 * timeout.  Their frames wait in the pads, so nobody is silent: every pair
 * comes out and no warning is posted. */
GST_START_TEST (test_slow_pairs_are_not_silence)
{
  const gint w = 320, h = 240, n = SLOW_PAIRS;
  guint8 *image = g_malloc (w * h);
  GstBuffer *frames[2 * SLOW_PAIRS];
  SdCheckPair p;
  gint64 begin, pair_us;
  gint i;

  for (i = 0; i < w * h; i++)
    image[i] = (i * 7 + i / w * 13) & 0xff;
  for (i = 0; i < 2 * n; i++)
    frames[i] = sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8, image, w, h,
        i / 2 * FRAME);
  sd_check_pair_init (&p, FALSE);
  sd_check_set_caps (p.left, "GRAY8", w, h);
  sd_check_set_caps (p.right, "GRAY8", w, h);

  fail_unless_equals_int (gst_harness_push (p.left, frames[0]), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (p.right, frames[1]), GST_FLOW_OK);
  pull_output (&p);
  begin = g_get_monotonic_time ();
  fail_unless_equals_int (gst_harness_push (p.left, frames[2]), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (p.right, frames[3]), GST_FLOW_OK);
  pull_output (&p);
  pair_us = g_get_monotonic_time () - begin;

  g_object_set (p.element, "timeout", pair_us / 4 * GST_USECOND, NULL);
  for (i = 4; i < 2 * n; i += 2) {
    fail_unless_equals_int (gst_harness_push (p.left, frames[i]),
        GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (p.right, frames[i + 1]),
        GST_FLOW_OK);
  }
  for (i = 2; i < n; i++)
    pull_output (&p);
  g_usleep (pair_us);
  expect_no_warning (&p);
  fail_unless_equals_uint64 (frames_dropped (&p), 0);
  sd_check_pair_clear (&p);
  g_free (image);
}

GST_END_TEST;

/* Not live, timeout at its default, sink_right never linked: it can never
 * deliver, so after a second the element says so (rather than waiting
 * forever without a word), drops the left frames and ends with the left
 * input. */
GST_START_TEST (test_not_live_unlinked)
{
  SdCheckPair p;
  gint64 begin = g_get_monotonic_time ();
  GstEvent *event;
  gboolean eos = FALSE;
  gchar *text;

  sd_check_pair_init_unlinked_right (&p, FALSE);
  sd_check_set_caps (p.left, "GRAY8", W, H);
  push (p.left, sd_check_scene.left, 0);
  text = wait_text (&p, GST_MESSAGE_WARNING, 5 * GST_SECOND);
  fail_unless (text != NULL, "no warning");
  fail_unless (g_str_has_prefix (text, "sink_right has delivered no frame")
      && strstr (text, "it is not linked") != NULL, "warning: %s", text);
  g_free (text);
  fail_unless (g_get_monotonic_time () - begin >= G_USEC_PER_SEC);
  wait_dropped (&p, 1);
  push (p.left, sd_check_scene.left, FRAME);
  wait_dropped (&p, 2);
  fail_unless (gst_harness_push_event (p.left, gst_event_new_eos ()));
  while (!eos && (event = gst_harness_pull_event (p.left))) {
    eos = GST_EVENT_TYPE (event) == GST_EVENT_EOS;
    gst_event_unref (event);
  }
  fail_unless (eos);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 0);
  sd_check_pair_clear (&p);
}

GST_END_TEST;

/* Not live, sink_right linked a moment after the left input's first frame
 * (as decodebin's pad-added does): the pair forms, and no warning comes,
 * not even after the second an unlinked input is given. */
GST_START_TEST (test_not_live_linked_late)
{
  guint16 *ref = reference ();
  SdCheckPair p;
  gint64 begin = g_get_monotonic_time ();

  sd_check_pair_init_unlinked_right (&p, FALSE);
  sd_check_set_caps (p.left, "GRAY8", W, H);
  push (p.left, sd_check_scene.left, 0);
  g_usleep (100 * 1000);
  sd_check_pair_link_right (&p);
  sd_check_set_caps (p.right, "GRAY8", W, H);
  push (p.right, sd_check_scene.right, 0);
  sd_check_expect_output (&p, 0, ref);
  g_usleep (MAX (0, begin + 3 * G_USEC_PER_SEC / 2 - g_get_monotonic_time ()));
  expect_no_warning (&p);
  fail_unless_equals_uint64 (frames_dropped (&p), 0);
  sd_check_pair_clear (&p);
  g_free (ref);
}

GST_END_TEST;

/* An input that sends gap events (no frame for a while, time going on) is
 * not silent: the one that sends nothing is, and the warning names it.
 * The gaps meanwhile count as no dropped frame, and the pair after the
 * silence comes out as before. */
GST_START_TEST (test_gaps_are_not_silence)
{
  guint16 *ref = reference ();
  SdCheckPair p;
  guint i;

  start (&p, FALSE, TIMEOUT);
  for (i = 0; i < 8; i++) {
    fail_unless (gst_harness_push_event (p.right, gst_event_new_gap (i *
                FRAME, FRAME)));
    g_usleep (TIMEOUT / 2 / GST_USECOND);
  }
  expect_text (&p, GST_MESSAGE_WARNING, "sink_left has delivered no frame");
  push (p.left, sd_check_scene.left, 10 * FRAME);
  expect_text (&p, GST_MESSAGE_INFO, "sink_left delivers frames again");
  push (p.right, sd_check_scene.right, 10 * FRAME);
  sd_check_expect_output (&p, 10 * FRAME, ref);
  fail_unless_equals_uint64 (frames_dropped (&p), 0);
  expect_no_warning (&p);
  sd_check_pair_clear (&p);
  g_free (ref);
}

GST_END_TEST;

static Suite *
starvation_suite (void)
{
  Suite *s = suite_create ("starvation");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, sd_check_scene_setup, sd_check_scene_teardown);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_not_live_waits);
  tcase_add_test (tc, test_not_live_timeout);
  tcase_add_test (tc, test_live_default);
  tcase_add_test (tc, test_live_never);
  tcase_add_test (tc, test_ends);
  tcase_add_test (tc, test_ahead_is_not_silent);
  tcase_add_test (tc, test_slow_pairs_are_not_silence);
  tcase_add_test (tc, test_not_live_unlinked);
  tcase_add_test (tc, test_not_live_linked_late);
  tcase_add_test (tc, test_gaps_are_not_silence);
  return s;
}

GST_CHECK_MAIN (starvation);
