/* stereodepth calibration=FILE: a synthetic rig (known intrinsics,
 * distortion, rotation and baseline) renders two distorted, unrectified
 * views of known planes; through the element with the rig's OpenCV YAML
 * file and output=depth, the planes come out at their depth; both views in
 * one side-by-side frame give the same bits as two pads, and the rig as a
 * ROS camera_info pair the same depth.  And the errors a user meets: a file that is not there, a ROS right file without
 * its left one, a calibration of another aspect ratio. */
#include <glib/gstdio.h>
#include <math.h>

#include "sd-check.h"

#define W 640
#define H 480
/* the rig's scene spans 18 to 55 px of disparity at this width */
#define DISPARITIES 64

static gint
compare_double (gconstpointer a, gconstpointer b)
{
  const gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return (x > y) - (x < y);
}

/* Whether the rectified left pixel (u, v) is inside one plane: the scene
 * has no depth step within 6 px of it (its planes are 0.4 m or more
 * apart, and its slant changes depth by far less than 3 % over 6 px). */
static gboolean
interior (const SdCheckRig * rig, gint u, gint v, gdouble z)
{
  static const gint off[8][2] = { {-6, 0}, {6, 0}, {0, -6}, {0, 6},
  {-6, -6}, {6, 6}, {-6, 6}, {6, -6}
  };

  for (gint i = 0; i < 8; i++) {
    const gdouble zn = sd_rig_depth (&rig->calib, &rig->scene,
        u + off[i][0], v + off[i][1]);
    if (zn <= 0 || fabs (zn - z) > 0.03 * z)
      return FALSE;
  }
  return TRUE;
}

/* The rig's output (output=disparity or depth) for its raw views on two
 * pads, with the calibration files given (right: NULL for OpenCV's); when
 * info is not NULL, the text of the INFO message the element posted, or
 * NULL. */
static GstBuffer *
rig_output_two_pads (const SdCheckRig * rig, const gchar * output,
    const gchar * calibration, const gchar * calibration_right, gchar ** info)
{
  SdCheckPair p;
  GstBuffer *out;

  sd_check_pair_init_with (&p, FALSE, "calibration", calibration,
      "calibration-right", calibration_right, "num-disparities",
      DISPARITIES, NULL);
  gst_util_set_object_arg (G_OBJECT (p.element), "output", output);
  sd_check_set_caps (p.left, "GRAY8", W, H);
  sd_check_set_caps (p.right, "GRAY8", W, H);
  fail_unless_equals_int (gst_harness_push (p.left,
          sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8, rig->raw[0], W, H, 0)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (p.right,
          sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8, rig->raw[1], W, H, 0)),
      GST_FLOW_OK);
  out = gst_harness_pull (p.left);
  if (info) {
    GstMessage *msg = gst_bus_pop_filtered (p.bus, GST_MESSAGE_INFO);
    GError *err = NULL;

    *info = NULL;
    if (msg) {
      gst_message_parse_info (msg, &err, NULL);
      *info = g_strdup (err->message);
      g_error_free (err);
      gst_message_unref (msg);
    }
  }
  sd_check_pair_clear (&p);
  return out;
}

/* The depth of out (the rig's output=depth) on the planes' interior. */
static void
check_depth (const SdCheckRig * rig, GstBuffer * out)
{
  GstMapInfo map;
  gint n = 0, within = 0, valid = 0;
  gdouble median = 0;
  GArray *errors = g_array_new (FALSE, FALSE, sizeof (gdouble));

  fail_unless (out != NULL);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));

  /* interior pixels away from the image edges and from the left strip
   * whose matches fall outside the right view */
  for (gint v = 16; v < H - 16; v++) {
    for (gint u = DISPARITIES; u < W - 16; u++) {
      const gdouble z = sd_rig_depth (&rig->calib, &rig->scene, u, v);
      const guint16 mm = GST_READ_UINT16_LE (map.data + 2 * (v * W + u));
      gdouble e;

      if (z <= 0 || !interior (rig, u, v, z))
        continue;
      n++;
      if (mm == 0 || mm == 65535)
        continue;
      valid++;
      e = fabs (mm - z) / z;
      within += e <= 0.01;
      g_array_append_val (errors, e);
    }
  }
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);

  g_array_sort (errors, compare_double);
  if (errors->len)
    median = g_array_index (errors, gdouble, errors->len / 2);
  g_print ("%d interior pixels, %d valid, %d within 1 %%, median error "
      "%.3f %%\n", n, valid, within, 100 * median);
  fail_unless (n > W * H / 3, "only %d interior pixels", n);
  /* the element answers on the planes (what it leaves invalid is mostly
   * background the near planes hide from the right camera), and where it
   * answers the depth is within 1 %.  The median error is about 0.6 %:
   * SGM's parabola pulls the background's 17.89 px towards 18 */
  fail_unless (valid >= 0.9 * n, "%d of %d interior pixels valid", valid, n);
  fail_unless (within >= 0.99 * valid, "%d of %d valid pixels within 1 %%",
      within, valid);
  fail_unless (median <= 0.01, "median error %.3f %%", 100 * median);
  g_array_unref (errors);
}

GST_START_TEST (test_rig_depth)
{
  SdCheckRig rig;
  GstBuffer *out;
  gchar *info;

  sd_check_rig_setup (&rig, W, H);
  out = rig_output_two_pads (&rig, "depth", rig.path, NULL, &info);
  check_depth (&rig, out);
  /* the rig's views line up: align-rows leaves them alone, quietly */
  fail_unless (info == NULL, "INFO: %s", info);
  sd_check_rig_clear (&rig);
}

GST_END_TEST;

/* The right camera's raw view two rows lower than its calibration says:
 * align-rows measures it, moves the rows back (an INFO message says so)
 * and the planes come out at their depth as above. */
GST_START_TEST (test_rig_rows_moved)
{
  SdCheckRig rig;
  GstBuffer *out;
  gchar *info;

  sd_check_rig_setup (&rig, W, H);
  memmove (rig.raw[1] + 2 * W, rig.raw[1], (gsize) W * (H - 2));
  out = rig_output_two_pads (&rig, "depth", rig.path, NULL, &info);
  check_depth (&rig, out);
  fail_unless (info && strstr (info, "moved back"), "INFO: %s", info);
  g_print ("%s\n", info);
  g_free (info);
  sd_check_rig_clear (&rig);
}

GST_END_TEST;

/* The same with both views in one side-by-side frame on sink_left: views
 * of that frame, then rectified. */
static GstBuffer *
rig_output_packed (const SdCheckRig * rig)
{
  GstElement *e = gst_element_factory_make ("stereodepth", NULL);
  guint8 *frame = g_malloc ((gsize) 2 * W * H);
  GstHarness *h;
  GstBuffer *out;

  g_object_set (e, "backend", 1 /* cpu */ , "num-disparities", DISPARITIES,
      "calibration", rig->path, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "input-layout", "side-by-side");
  h = gst_harness_new_with_element (e, "sink_left", "src");
  gst_object_unref (e);
  for (gint y = 0; y < H; y++) {
    memcpy (frame + (gsize) y * 2 * W, rig->raw[0] + (gsize) y * W, W);
    memcpy (frame + (gsize) y * 2 * W + W, rig->raw[1] + (gsize) y * W, W);
  }
  sd_check_set_caps (h, "GRAY8", 2 * W, H);
  fail_unless_equals_int (gst_harness_push (h,
          sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8, frame, 2 * W, H, 0)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  gst_harness_teardown (h);
  g_free (frame);
  return out;
}

/* Both views in one stream are rectified the same: the same bits. */
GST_START_TEST (test_rig_packed)
{
  SdCheckRig rig;
  GstBuffer *two, *one;
  GstMapInfo a, b;

  sd_check_rig_setup (&rig, W, H);
  two = rig_output_two_pads (&rig, "disparity", rig.path, NULL, NULL);
  one = rig_output_packed (&rig);
  fail_unless (two != NULL && one != NULL);
  fail_unless (gst_buffer_map (two, &a, GST_MAP_READ));
  fail_unless (gst_buffer_map (one, &b, GST_MAP_READ));
  fail_unless_equals_uint64 (a.size, b.size);
  fail_unless (memcmp (a.data, b.data, a.size) == 0,
      "packed and two-pad rectified outputs differ");
  gst_buffer_unmap (two, &a);
  gst_buffer_unmap (one, &b);
  gst_buffer_unref (two);
  gst_buffer_unref (one);
  sd_check_rig_clear (&rig);
}

GST_END_TEST;

/* The same rig as a ROS camera_info pair (lengths in metres): the same
 * depth in millimetres as from OpenCV's file. */
GST_START_TEST (test_rig_ros)
{
  SdCheckRig rig;
  gchar *left = NULL, *right = NULL;
  GstBuffer *opencv, *ros;
  char msg[256];

  sd_check_rig_setup (&rig, W, H);
  left = g_build_filename (rig.dir, "left.yaml", NULL);
  right = g_build_filename (rig.dir, "right.yaml", NULL);
  fail_unless (sd_rig_write_ros_yaml (&rig.calib, 0, left, msg,
          sizeof (msg)), "%s", msg);
  fail_unless (sd_rig_write_ros_yaml (&rig.calib, 1, right, msg,
          sizeof (msg)), "%s", msg);
  opencv = rig_output_two_pads (&rig, "depth", rig.path, NULL, NULL);
  ros = rig_output_two_pads (&rig, "depth", left, right, NULL);
  fail_unless (opencv != NULL && ros != NULL);
  {
    GstMapInfo a, b;
    gint far = 0;

    fail_unless (gst_buffer_map (opencv, &a, GST_MAP_READ));
    fail_unless (gst_buffer_map (ros, &b, GST_MAP_READ));
    fail_unless_equals_uint64 (a.size, b.size);
    fail_unless (memcmp (a.data, b.data, a.size) == 0,
        "ROS and OpenCV calibrations give different depth");
    for (gsize i = 0; i < a.size / 2; i++)
      far += GST_READ_UINT16_LE (a.data + 2 * i) > 1000;
    /* millimetres, not metres: the planes are 1.3 to 4 m away */
    fail_unless (far > (gint) (a.size / 4), "only %d pixels beyond 1 m", far);
    gst_buffer_unmap (opencv, &a);
    gst_buffer_unmap (ros, &b);
  }
  gst_buffer_unref (opencv);
  gst_buffer_unref (ros);
  g_unlink (left);
  g_unlink (right);
  g_free (left);
  g_free (right);
  sd_check_rig_clear (&rig);
}

GST_END_TEST;

GST_START_TEST (test_calibration_errors)
{
  SdCheckRig rig;
  SdCheckPair p;

  sd_check_start_fails ("stereodepth", "/nonexistent/rig.yaml", NULL,
      "/nonexistent/rig.yaml");
  sd_check_start_fails ("stereodepth", NULL, "right.yaml",
      "calibration-right");

  /* the rig is 640x480; a 640x360 stream cannot be scaled to it */
  sd_check_rig_setup (&rig, W, H);
  sd_check_pair_init_with (&p, FALSE, "calibration", rig.path, NULL);
  sd_check_set_caps (p.left, "GRAY8", W, 360);
  sd_check_set_caps (p.right, "GRAY8", W, 360);
  gst_harness_push (p.left, sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8,
          rig.raw[0], W, 360, 0));
  gst_harness_push (p.right, sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8,
          rig.raw[1], W, 360, 0));
  sd_check_expect_error (p.bus, "640x480", "640x360");
  sd_check_pair_clear (&p);
  sd_check_rig_clear (&rig);
}

GST_END_TEST;

static Suite *
calib_suite (void)
{
  Suite *s = suite_create ("stereodepth-calibration");
  TCase *tc = tcase_create ("calibration");

  tcase_add_test (tc, test_rig_depth);
  tcase_add_test (tc, test_rig_rows_moved);
  tcase_add_test (tc, test_rig_packed);
  tcase_add_test (tc, test_rig_ros);
  tcase_add_test (tc, test_calibration_errors);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (calib);
