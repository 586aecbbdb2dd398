/* stereodepth with both views in one stream on sink_left (side by side or
 * top-bottom, from multiview caps or input-layout): the same bits as the
 * two-pad form, the view's size out, and clear errors for what it cannot
 * read. */
#include "sd-check.h"

#define W SD_CHECK_WIDTH
#define H SD_CHECK_HEIGHT
#define FRAME SD_CHECK_FRAME

#define scene sd_check_scene

/* stereodepth on a harness of its sink_left and src alone (sink_right
 * stays unlinked, as with a packed camera). */
static GstHarness *
packed_harness (const gchar * input_layout, GstBus ** bus)
{
  GstHarness *h = gst_harness_new_with_padnames ("stereodepth", "sink_left",
      "src");

  g_object_set (h->element, "backend", 1 /* cpu */ ,
      "num-disparities", SD_CHECK_DISPARITIES, NULL);
  if (input_layout)
    gst_util_set_object_arg (G_OBJECT (h->element), "input-layout",
        input_layout);
  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  return h;
}

static void
packed_teardown (GstHarness * h, GstBus * bus)
{
  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

/* The first vw columns of a scene view. */
static guint8 *
crop (const guint8 * view, gint vw)
{
  guint8 *img = g_malloc (vw * H);
  gint y;

  for (y = 0; y < H; y++)
    memcpy (img + y * vw, view + y * W, vw);
  return img;
}

/* The scene's two views, their first vw columns, in one gray image of the
 * layout. */
static guint8 *
pack (gboolean side_by_side, gboolean right_first, gint vw)
{
  const guint8 *first = right_first ? scene.right : scene.left;
  const guint8 *second = right_first ? scene.left : scene.right;
  guint8 *img = g_malloc (2 * vw * H);
  gint y;

  for (y = 0; y < H; y++) {
    if (side_by_side) {
      memcpy (img + y * 2 * vw, first + y * W, vw);
      memcpy (img + y * 2 * vw + vw, second + y * W, vw);
    } else {
      memcpy (img + y * vw, first + y * W, vw);
      memcpy (img + (H + y) * vw, second + y * W, vw);
    }
  }
  return img;
}

typedef struct
{
  const gchar *input_layout;    /* the property, NULL for auto */
  const gchar *multiview;       /* caps fields, "" for none */
  gboolean side_by_side, right_first;
} Layout;

/* multiview-flags 0x1: the right view comes first */
#define RIGHT_FIRST ", multiview-flags=(GstVideoMultiviewFlagsSet)0x1:0xffffffff"

static const Layout layouts[] = {
  {NULL, ", multiview-mode=side-by-side", TRUE, FALSE},
  {NULL, ", multiview-mode=top-bottom", FALSE, FALSE},
  {NULL, ", multiview-mode=side-by-side" RIGHT_FIRST, TRUE, TRUE},
  {"side-by-side", "", TRUE, FALSE},
  {"top-bottom", "", FALSE, FALSE},
  {"top-bottom", RIGHT_FIRST, FALSE, TRUE},
};

/* Every layout, in formats of one, two (packed 4:2:2, as stereo USB
 * cameras send), three and four bytes a pixel and planar ones of 8 and 10
 * bits, gives the two-pad output bit for bit, at the view's size, frame
 * after frame, and ends at EOS. */
GST_START_TEST (test_packed_equals_two_pads)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY, GST_VIDEO_FORMAT_RGB,
    GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_AYUV, GST_VIDEO_FORMAT_I420,
    GST_VIDEO_FORMAT_P010_10LE
  };
  SdParams params;
  guint16 *ref;
  guint l, f;

  /* registered here, the caps' flag-set type needs no plugin to parse
   * (loading pbtypes for it leaks GStreamer's cached plugin entry) */
  g_type_ensure (GST_TYPE_VIDEO_MULTIVIEW_FLAGSET);
  sd_check_params (&params);
  ref = sd_check_reference (&params, scene.left, scene.right, W, H);
  for (l = 0; l < G_N_ELEMENTS (layouts); l++) {
    const Layout *lay = &layouts[l];
    guint8 *img = pack (lay->side_by_side, lay->right_first, W);
    const gint fw = lay->side_by_side ? 2 * W : W;
    const gint fh = lay->side_by_side ? H : 2 * H;

    for (f = 0; f < G_N_ELEMENTS (formats); f++) {
      GstBus *bus;
      GstHarness *h = packed_harness (lay->input_layout, &bus);
      gchar *caps = g_strdup_printf ("video/x-raw, format=%s, width=%d, "
          "height=%d, framerate=30/1%s",
          gst_video_format_to_string (formats[f]), fw, fh, lay->multiview);
      GstCaps *out_caps;
      GstStructure *s;
      gint n;
      guint i;

      gst_harness_set_src_caps_str (h, caps);
      for (i = 0; i < 3; i++) {
        GstBuffer *out;

        fail_unless_equals_int (gst_harness_push (h,
                sd_check_frame_new (formats[f], img, fw, fh, i * FRAME)),
            GST_FLOW_OK);
        out = gst_harness_pull (h);
        fail_unless (out != NULL, "%s: no output", caps);
        fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * FRAME);
        sd_check_assert_output (out, ref, W, H);
        gst_buffer_unref (out);
      }
      out_caps = gst_pad_get_current_caps (h->sinkpad);
      s = gst_caps_get_structure (out_caps, 0);
      fail_unless (gst_structure_get_int (s, "width", &n) && n == W);
      fail_unless (gst_structure_get_int (s, "height", &n) && n == H);
      gst_caps_unref (out_caps);

      fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
      for (;;) {
        GstEvent *e = gst_harness_pull_event (h);

        fail_unless (e != NULL, "%s: no EOS out", caps);
        if (GST_EVENT_TYPE (e) == GST_EVENT_EOS) {
          gst_event_unref (e);
          break;
        }
        gst_event_unref (e);
      }
      g_free (caps);
      packed_teardown (h, bus);
    }
    g_free (img);
  }
  g_free (ref);
}

GST_END_TEST;

/* Side by side in packed 4:2:2 with views an odd number of pixels wide: the
 * right view starts inside a pair of pixels that shares its chroma with
 * the left view's last one, and still gives the two-pad output. */
GST_START_TEST (test_packed_odd_view_width)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_YUY2,
    GST_VIDEO_FORMAT_UYVY
  };
  const gint vw = W - 1;
  guint8 *left = crop (scene.left, vw), *right = crop (scene.right, vw);
  guint8 *img = pack (TRUE, FALSE, vw);
  SdParams params;
  guint16 *ref;
  guint f;

  sd_check_params (&params);
  ref = sd_check_reference (&params, left, right, vw, H);
  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstBus *bus;
    GstHarness *h = packed_harness ("side-by-side", &bus);
    GstBuffer *out;
    gchar *caps = g_strdup_printf ("video/x-raw, format=%s, width=%d, "
        "height=%d, framerate=30/1", gst_video_format_to_string (formats[f]),
        2 * vw, H);

    gst_harness_set_src_caps_str (h, caps);
    fail_unless_equals_int (gst_harness_push (h,
            sd_check_frame_new (formats[f], img, 2 * vw, H, 0)), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL, "%s: no output", caps);
    sd_check_assert_output (out, ref, vw, H);
    gst_buffer_unref (out);
    g_free (caps);
    packed_teardown (h, bus);
  }
  g_free (ref);
  g_free (img);
  g_free (right);
  g_free (left);
}

GST_END_TEST;

/* Side-by-side GRAY8 caps of the scene's size on h; returns the scene
 * packed that way (g_free) and its two-pad disparity in *ref (g_free). */
static guint8 *
start_side_by_side (GstHarness * h, guint16 ** ref)
{
  SdParams params;

  sd_check_params (&params);
  *ref = sd_check_reference (&params, scene.left, scene.right, W, H);
  gst_harness_set_src_caps_str (h, "video/x-raw, format=GRAY8, width=128, "
      "height=48, framerate=30/1, multiview-mode=side-by-side");
  return pack (TRUE, FALSE, W);
}

static void
push_side_by_side (GstHarness * h, const guint8 * img, GstClockTime pts)
{
  fail_unless_equals_int (gst_harness_push (h,
          sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8, img, 2 * W, H, pts)),
      GST_FLOW_OK);
}

/* A flush on sink_left (a flushing seek) restarts a packed stream: the
 * right input the element ended stays out of the way. */
GST_START_TEST (test_packed_flush)
{
  guint16 *ref;
  GstBus *bus;
  GstHarness *h = packed_harness (NULL, &bus);
  guint8 *img = start_side_by_side (h, &ref);
  GstSegment segment;
  GstBuffer *out;
  guint i;

  for (i = 0; i < 2; i++) {
    push_side_by_side (h, img, i * FRAME);
    out = gst_harness_pull (h);
    sd_check_assert_output (out, ref, W, H);
    gst_buffer_unref (out);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  push_side_by_side (h, img, 0);
  out = gst_harness_pull (h);
  fail_unless (out != NULL, "no output after the flush");
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 0);
  sd_check_assert_output (out, ref, W, H);
  gst_buffer_unref (out);

  packed_teardown (h, bus);
  g_free (img);
  g_free (ref);
}

GST_END_TEST;

/* A gap event on the packed input: its frame comes out flagged GAP, with
 * no valid disparity, between the computed ones. */
GST_START_TEST (test_packed_gap)
{
  guint16 *ref;
  GstBus *bus;
  GstHarness *h = packed_harness (NULL, &bus);
  guint8 *img = start_side_by_side (h, &ref);
  GstBuffer *out;
  guint i;

  for (i = 0; i < 3; i++) {
    if (i == 1)
      fail_unless (gst_harness_push_event (h, gst_event_new_gap (i * FRAME,
                  FRAME)));
    else
      push_side_by_side (h, img, i * FRAME);
    out = gst_harness_pull (h);
    if (i == 1) {
      sd_check_assert_gap (out, i * FRAME);
    } else {
      fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * FRAME);
      sd_check_assert_output (out, ref, W, H);
    }
    gst_buffer_unref (out);
  }
  fail_unless_equals_uint64 (sd_check_get_u64 (h->element,
          "frames-dropped"), 0);

  packed_teardown (h, bus);
  g_free (img);
  g_free (ref);
}

GST_END_TEST;

/* Packed frames that cannot hold two views, an unsupported packing, and
 * sink_right linked beside a packed sink_left: an error that says why. */
static void
expect_error (const gchar * caps, gboolean link_right, const gchar * words)
{
  GstBus *bus;
  GstHarness *h = packed_harness (NULL, &bus);
  GstHarness *right = NULL;
  GError *err = NULL;

  if (link_right)
    right = gst_harness_new_with_element (h->element, "sink_right", NULL);
  gst_harness_set_src_caps_str (h, caps);
  gst_harness_push (h, sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8,
          scene.left, W, H, 0));
  err = sd_check_wait_error (bus);
  fail_unless (strstr (err->message, words) != NULL, "%s: error \"%s\"",
      caps, err->message);
  g_error_free (err);
  if (right)
    gst_harness_teardown (right);
  packed_teardown (h, bus);
}

GST_START_TEST (test_packed_errors)
{
  expect_error ("video/x-raw, format=GRAY8, width=63, height=48, "
      "framerate=30/1, multiview-mode=side-by-side", FALSE, "must be even");
  expect_error ("video/x-raw, format=GRAY8, width=64, height=47, "
      "framerate=30/1, multiview-mode=top-bottom", FALSE, "must be even");
  expect_error ("video/x-raw, format=GRAY8, width=64, height=48, "
      "framerate=30/1, multiview-mode=row-interleaved", FALSE,
      "not supported");
  expect_error ("video/x-raw, format=GRAY8, width=64, height=48, "
      "framerate=30/1, multiview-mode=side-by-side", TRUE,
      "sink_right is linked too");
}

GST_END_TEST;

static Suite *
packed_suite (void)
{
  Suite *s = suite_create ("stereodepth-packed");
  TCase *tc = tcase_create ("packed");

  tcase_add_checked_fixture (tc, sd_check_scene_setup,
      sd_check_scene_teardown);
  tcase_add_test (tc, test_packed_equals_two_pads);
  tcase_add_test (tc, test_packed_odd_view_width);
  tcase_add_test (tc, test_packed_flush);
  tcase_add_test (tc, test_packed_gap);
  tcase_add_test (tc, test_packed_errors);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (packed);
