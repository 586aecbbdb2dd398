/* stereodepth output=depth: millimetres from focal-length and baseline, the
 * same bits as the engine's, set in any order, and an error that says what
 * is missing. */
#include "sd-check.h"

#define W SD_CHECK_WIDTH
#define H SD_CHECK_HEIGHT

#define scene sd_check_scene

/* The properties in the order given by a launch line: output first, which
 * on its own would be incomplete, then the rig. */
GST_START_TEST (test_depth_output)
{
  SdParams params;
  SdCheckPair p;
  guint16 *ref, *disparity;
  GstBuffer *out;
  GstMapInfo map;
  gint i, valid = 0;

  sd_check_params (&params);
  disparity = sd_check_reference (&params, scene.left, scene.right, W, H);
  params.output = SD_OUTPUT_DEPTH;
  params.focal_length = 700.5f;
  params.baseline = 120.25f;
  ref = sd_check_reference (&params, scene.left, scene.right, W, H);

  sd_check_pair_init (&p, FALSE);
  gst_util_set_object_arg (G_OBJECT (p.element), "output", "depth");
  g_object_set (p.element, "focal-length", 700.5f, "baseline", 120.25f,
      NULL);
  sd_check_set_caps (p.left, "GRAY8", W, H);
  sd_check_set_caps (p.right, "GRAY8", W, H);
  sd_check_push_pair (&p, scene.left, scene.right, 0);
  out = gst_harness_pull (p.left);
  sd_check_assert_output (out, ref, W, H);

  /* and it is f * B / d of the disparity output, to the millimetre */
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  for (i = 0; i < W * H; i++) {
    const guint16 mm = GST_READ_UINT16_LE (map.data + 2 * i);

    /* 0 is invalid in both; a valid disparity of exactly 0 (which the
     * disparity output cannot tell from invalid) is 65535 mm, "farther" */
    if (mm == 0)
      fail_unless_equals_int (disparity[i], 0);
    if (disparity[i] == 0)
      fail_unless (mm == 0 || mm == 65535, "pixel %d: %u mm for d 0", i, mm);
    if (disparity[i] > 0 && mm < 65535) {
      const gdouble z = 700.5 * 120.25 / (disparity[i] / 16.0);

      fail_unless (fabs (mm - z) <= 0.5 + 1e-6, "pixel %d: %u mm for %.3f",
          i, mm, z);
      valid++;
    }
  }
  gst_buffer_unmap (out, &map);
  fail_unless (valid > W * H / 2, "only %d pixels with a depth", valid);
  gst_buffer_unref (out);
  sd_check_pair_clear (&p);
  g_free (ref);
  g_free (disparity);
}

GST_END_TEST;

GST_START_TEST (test_depth_needs_rig)
{
  SdCheckPair p;
  GError *err = NULL;

  sd_check_pair_init (&p, FALSE);
  gst_util_set_object_arg (G_OBJECT (p.element), "output", "depth");
  sd_check_set_caps (p.left, "GRAY8", W, H);
  sd_check_set_caps (p.right, "GRAY8", W, H);
  sd_check_push_sized (&p, scene.left, scene.right, W, H, 0);
  err = sd_check_wait_error (p.bus);
  fail_unless (strstr (err->message, "focal-length and baseline") != NULL,
      "error: %s", err->message);
  g_error_free (err);
  sd_check_pair_clear (&p);
}

GST_END_TEST;

/* statistics=true: one element message per output frame whose numbers
 * are those of the frame, in pixels or millimetres as output says. */
static void
check_statistics (const gchar * output, const gchar * unit, gdouble scale)
{
  SdCheckPair p;
  GstBuffer *out;
  GstMapInfo map;
  GstMessage *msg;
  const GstStructure *st;
  guint valid = 0, lo = G_MAXUINT16, hi = 0;
  gdouble share, min, max;
  guint64 pts, elapsed;
  gint search_min, search_max;

  sd_check_pair_init_with (&p, FALSE, "statistics", TRUE, "focal-length",
      700.0f, "baseline", 120.0f, NULL);
  gst_util_set_object_arg (G_OBJECT (p.element), "output", output);
  sd_check_set_caps (p.left, "GRAY8", W, H);
  sd_check_set_caps (p.right, "GRAY8", W, H);
  sd_check_push_pair (&p, scene.left, scene.right, 2 * SD_CHECK_FRAME);
  out = gst_harness_pull (p.left);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  for (gint i = 0; i < W * H; i++) {
    const guint v = GST_READ_UINT16_LE (map.data + 2 * i);
    if (v) {
      valid++;
      lo = MIN (lo, v);
      hi = MAX (hi, v);
    }
  }
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  fail_unless (valid > 0);

  msg = gst_bus_timed_pop_filtered (p.bus, 10 * GST_SECOND,
      GST_MESSAGE_ELEMENT);
  fail_unless (msg != NULL, "no statistics message");
  st = gst_message_get_structure (msg);
  fail_unless (gst_structure_has_name (st, "stereodepth-statistics"));
  fail_unless_equals_string (gst_structure_get_string (st, "unit"), unit);
  fail_unless (gst_structure_get (st, "timestamp", G_TYPE_UINT64, &pts,
          "valid-share", G_TYPE_DOUBLE, &share, "min", G_TYPE_DOUBLE, &min,
          "max", G_TYPE_DOUBLE, &max, "process-time", G_TYPE_UINT64,
          &elapsed, "search-min", G_TYPE_INT, &search_min, "search-max",
          G_TYPE_INT, &search_max, NULL));
  fail_unless_equals_uint64 (pts, 2 * SD_CHECK_FRAME);
  fail_unless (fabs (share - (gdouble) valid / (W * H)) < 1e-12);
  fail_unless (min == lo / scale && max == hi / scale, "%g..%g for %u..%u",
      min, max, lo, hi);
  fail_unless (elapsed > 0);
  fail_unless_equals_int (search_min, 0);
  fail_unless_equals_int (search_max, SD_CHECK_DISPARITIES - 1);
  gst_message_unref (msg);
  sd_check_pair_clear (&p);
}

/* The search-min and search-max of the pair's own range: a count given,
 * then the automatic one set while playing, resolved from the width. */
static void
expect_search (SdCheckPair * p, GstClockTime pts, gint lo, gint hi)
{
  GstMessage *msg;
  gint search_min = -1, search_max = -1;

  sd_check_push_pair (p, scene.left, scene.right, pts);
  gst_buffer_unref (gst_harness_pull (p->left));
  msg = gst_bus_timed_pop_filtered (p->bus, 10 * GST_SECOND,
      GST_MESSAGE_ELEMENT);
  fail_unless (msg != NULL, "no statistics message");
  fail_unless (gst_structure_get (gst_message_get_structure (msg),
          "search-min", G_TYPE_INT, &search_min, "search-max", G_TYPE_INT,
          &search_max, NULL));
  fail_unless (search_min == lo && search_max == hi,
      "searched %d..%d, not %d..%d", search_min, search_max, lo, hi);
  gst_message_unref (msg);
}

GST_START_TEST (test_statistics_search_range)
{
  SdCheckPair p;

  sd_check_pair_init_with (&p, FALSE, "statistics", TRUE, "num-disparities",
      40, "min-disparity", 2, NULL);
  sd_check_set_caps (p.left, "GRAY8", W, H);
  sd_check_set_caps (p.right, "GRAY8", W, H);
  expect_search (&p, 0, 2, 2 + 40 - 1);
  g_object_set (p.element, "num-disparities", 0, NULL);
  /* 64 pixels wide: an eighth, rounded up to 16 */
  expect_search (&p, SD_CHECK_FRAME, 2, 2 + 16 - 1);
  sd_check_pair_clear (&p);
}

GST_END_TEST;

GST_START_TEST (test_statistics)
{
  check_statistics ("disparity", "pixels", 16.0);
  check_statistics ("depth", "millimetres", 1.0);
}

GST_END_TEST;

static Suite *
depth_suite (void)
{
  Suite *s = suite_create ("stereodepth-depth");
  TCase *tc = tcase_create ("depth");

  tcase_add_checked_fixture (tc, sd_check_scene_setup,
      sd_check_scene_teardown);
  tcase_add_test (tc, test_depth_output);
  tcase_add_test (tc, test_depth_needs_rig);
  tcase_add_test (tc, test_statistics);
  tcase_add_test (tc, test_statistics_search_range);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (depth);
