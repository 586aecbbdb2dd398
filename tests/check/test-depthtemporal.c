/* depthtemporal tests: the element applies common/'s temporal filter to a
 * stream in place (exact values for a few frames), its properties change
 * it while playing, and a flush, a discontinuity or a new size start the
 * history again. */
#include "sd-check.h"

#define W 4
#define H 2

static GstHarness *
temporal_new (const gchar * props, gint width)
{
  GstHarness *h = gst_harness_new_parse (props);
  gchar *caps = g_strdup_printf ("video/x-raw,format=GRAY16_LE,width=%d,"
      "height=%d,framerate=30/1", width, H);

  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  return h;
}

/* Pushes a frame whose every pixel is value (flags on the buffer) and
 * returns its output, checking every pixel of it is the same; the
 * output's flags in out_flags unless NULL. */
static guint
push_value_flags (GstHarness * h, guint value, gint width,
    GstBufferFlags flags, GstBufferFlags * out_flags)
{
  guint8 data[2 * 8 * H];
  GstBuffer *buf;
  GstMapInfo map;
  guint out;
  gint i;

  g_assert (width <= 8);
  for (i = 0; i < width * H; i++)
    GST_WRITE_UINT16_LE (data + 2 * i, value);
  buf = gst_buffer_new_memdup (data, 2 * width * H);
  GST_BUFFER_FLAG_SET (buf, flags);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  buf = gst_harness_pull (h);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 2 * width * H);
  out = GST_READ_UINT16_LE (map.data);
  for (i = 1; i < width * H; i++)
    fail_unless_equals_int (GST_READ_UINT16_LE (map.data + 2 * i), out);
  gst_buffer_unmap (buf, &map);
  if (out_flags)
    *out_flags = GST_BUFFER_FLAGS (buf);
  gst_buffer_unref (buf);
  return out;
}

static guint
push_value (GstHarness * h, guint value, gint width, GstBufferFlags flags)
{
  return push_value_flags (h, value, width, flags, NULL);
}

/* Noise within delta moves by alpha; beyond delta it is taken at once;
 * still values stay as they are. */
GST_START_TEST (test_smooths_within_delta)
{
  GstHarness *h = temporal_new ("depthtemporal alpha=0.5 delta=16", W);

  fail_unless_equals_int (push_value (h, 800, W, 0), 800);
  fail_unless_equals_int (push_value (h, 800, W, 0), 800);
  fail_unless_equals_int (push_value (h, 808, W, 0), 804);
  fail_unless_equals_int (push_value (h, 800, W, 0), 802);
  fail_unless_equals_int (push_value (h, 900, W, 0), 900);
  /* holes stay holes by default */
  fail_unless_equals_int (push_value (h, 0, W, 0), 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Properties apply from the next frame: persistence holds a hole's last
 * value, alpha 1 follows the stream exactly. */
GST_START_TEST (test_properties_while_playing)
{
  GstHarness *h = temporal_new ("depthtemporal", W);
  GstElement *temporal = gst_harness_find_element (h, "depthtemporal");

  fail_unless_equals_int (push_value (h, 500, W, 0), 500);
  g_object_set (temporal, "persistence", 1, NULL);
  fail_unless_equals_int (push_value (h, 0, W, 0), 500);
  fail_unless_equals_int (push_value (h, 0, W, 0), 0);
  g_object_set (temporal, "alpha", 1.0, "persistence", 0, NULL);
  fail_unless_equals_int (push_value (h, 500, W, 0), 500);
  fail_unless_equals_int (push_value (h, 510, W, 0), 510);
  fail_unless_equals_int (push_value (h, 0, W, 0), 0);
  gst_object_unref (temporal);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A flush, a discontinuity and a new size each start a new history: the
 * next frame passes unchanged. */
GST_START_TEST (test_history_restarts)
{
  GstHarness *h = temporal_new ("depthtemporal alpha=0.5", W);
  gchar *caps;

  fail_unless_equals_int (push_value (h, 800, W, 0), 800);
  fail_unless_equals_int (push_value (h, 810, W, 0), 805);

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_harness_play (h);
  caps = g_strdup_printf ("video/x-raw,format=GRAY16_LE,width=%d,"
      "height=%d,framerate=30/1", W, H);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  fail_unless_equals_int (push_value (h, 810, W, 0), 810);

  fail_unless_equals_int (push_value (h, 800, W, 0), 805);
  fail_unless_equals_int (push_value (h, 800, W, GST_BUFFER_FLAG_DISCONT),
      800);

  caps = g_strdup_printf ("video/x-raw,format=GRAY16_LE,width=%d,"
      "height=%d,framerate=30/1", 2 * W, H);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  fail_unless_equals_int (push_value (h, 810, 2 * W, 0), 810);
  fail_unless_equals_int (push_value (h, 800, 2 * W, 0), 805);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* stereodepth's frame for a gap (all 0, flagged GAP): persistence fills it
 * from the frames before, and then it is no gap; with nothing kept it stays
 * one. */
GST_START_TEST (test_gap_frames)
{
  GstHarness *h = temporal_new ("depthtemporal persistence=1", W);
  GstBufferFlags flags;

  fail_unless_equals_int (push_value (h, 500, W, 0), 500);
  fail_unless_equals_int (push_value_flags (h, 0, W, GST_BUFFER_FLAG_GAP,
          &flags), 500);
  fail_if (flags & GST_BUFFER_FLAG_GAP);
  fail_unless_equals_int (push_value_flags (h, 0, W, GST_BUFFER_FLAG_GAP,
          &flags), 0);
  fail_unless (flags & GST_BUFFER_FLAG_GAP);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
depthtemporal_suite (void)
{
  Suite *s = suite_create ("depthtemporal");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_smooths_within_delta);
  tcase_add_test (tc, test_properties_while_playing);
  tcase_add_test (tc, test_history_restarts);
  tcase_add_test (tc, test_gap_frames);
  return s;
}

GST_CHECK_MAIN (depthtemporal);
