/* stereorectify: the synthetic rig's raw views, rectified by it and matched
 * by stereodepth without a calibration, give the very bits stereodepth
 * gives with the calibration (the views line up with the disparity);
 * every component of every format it takes is remapped through its map
 * (full-resolution ones to the pipeline's bits, subsampled chroma through
 * the chroma map), no byte of a pixel left unwritten; both views in one
 * frame give each view as a frame of its own does; and the errors a user
 * meets: no calibration, a file that is not there, another aspect ratio. */
#include <stdarg.h>

#include "sd-check.h"

#define W 320
#define H 240
#define DISPARITIES 32

/* Caps of w x h frames of format, packed by mode (NONE: one view), the
 * right view first when right_first. */
static GstCaps *
view_caps (GstVideoFormat format, gint w, gint h, GstVideoMultiviewMode mode,
    gboolean right_first)
{
  GstVideoInfo info;

  gst_video_info_set_format (&info, format, w, h);
  GST_VIDEO_INFO_FPS_N (&info) = 30;
  GST_VIDEO_INFO_MULTIVIEW_MODE (&info) = mode;
  GST_VIDEO_INFO_MULTIVIEW_FLAGS (&info) = right_first ?
      GST_VIDEO_MULTIVIEW_FLAGS_RIGHT_VIEW_FIRST : 0;
  return gst_video_info_to_caps (&info);
}

/* stereorectify with its properties (name/value pairs of strings, up to
 * NULL) and bus (NULL: none), started with caps. */
static GstHarness *
rectify_new (GstBus * bus, GstCaps * caps, const gchar * first, ...)
{
  GstElement *e = gst_element_factory_make ("stereorectify", NULL);
  const gchar *name = first;
  GstHarness *harness;
  va_list args;

  fail_unless (e != NULL, "stereorectify is not in the registry");
  va_start (args, first);
  while (name) {
    gst_util_set_object_arg (G_OBJECT (e), name, va_arg (args,
            const gchar *));
    name = va_arg (args, const gchar *);
  }
  va_end (args);
  if (bus)
    gst_element_set_bus (e, bus);
  /* the harness starts the element: the properties are read then */
  harness = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps (harness, caps);
  return harness;
}

/* One frame through stereorectify with caps and view, pulled back. */
static GstBuffer *
rectify_one (const SdCheckRig * rig, GstCaps * caps, const gchar * view,
    GstBuffer * in)
{
  GstHarness *h = rectify_new (NULL, caps, "calibration", rig->path, "view",
      view, NULL);
  GstBuffer *out;

  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  gst_harness_teardown (h);
  return out;
}

/* One GRAY8 view of the rig through stereorectify, as a packed plane. */
static guint8 *
rectify_gray (const SdCheckRig * rig, const gchar * view)
{
  GstBuffer *out = rectify_one (rig, view_caps (GST_VIDEO_FORMAT_GRAY8, W, H,
          GST_VIDEO_MULTIVIEW_MODE_NONE, FALSE), view,
      sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8,
          rig->raw[g_str_equal (view, "right")], W, H, 0));
  GstVideoFrame frame;
  GstVideoInfo info;
  guint8 *plane = g_malloc ((gsize) W * H);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, W, H);
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  for (gint y = 0; y < H; y++)
    memcpy (plane + y * W, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), W);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (out);
  return plane;
}

/* stereodepth's disparity of a GRAY8 pair, with the calibration or none. */
static GstBuffer *
disparity (const guint8 * left, const guint8 * right,
    const gchar * calibration)
{
  SdCheckPair p;
  GstBuffer *out;

  /* align-rows measures the rig's pair and would move a right view it
   * found off (it finds none here); off, both runs remap the same way */
  sd_check_pair_init_with (&p, FALSE, "calibration", calibration,
      "num-disparities", DISPARITIES, "align-rows", FALSE, NULL);
  sd_check_set_caps (p.left, "GRAY8", W, H);
  sd_check_set_caps (p.right, "GRAY8", W, H);
  fail_unless_equals_int (gst_harness_push (p.left,
          sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8, left, W, H, 0)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (p.right,
          sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8, right, W, H, 0)),
      GST_FLOW_OK);
  out = gst_harness_pull (p.left);
  sd_check_pair_clear (&p);
  return out;
}

GST_START_TEST (test_views_line_up)
{
  SdCheckRig rig;
  guint8 *left, *right, *want;
  GstBuffer *calibrated, *rectified;
  SdRectification *rect;
  char msg[256];
  gint valid = 0;
  GstMapInfo a, b;

  sd_check_rig_setup (&rig, W, H);
  left = rectify_gray (&rig, "left");
  right = rectify_gray (&rig, "right");

  /* the views are the pipeline's remap of the raw ones */
  rect = sd_rectification_new (&rig.calib, W, H, msg, sizeof (msg));
  fail_unless (rect != NULL, "%s", msg);
  want = g_malloc ((gsize) W * H);
  sd_rectify_rows (rect->map[0], rig.raw[0], want, W, H, 0, H);
  fail_unless (memcmp (left, want, (gsize) W * H) == 0);
  sd_rectify_rows (rect->map[1], rig.raw[1], want, W, H, 0, H);
  fail_unless (memcmp (right, want, (gsize) W * H) == 0);

  /* and what stereodepth matches when it rectifies them itself */
  calibrated = disparity (rig.raw[0], rig.raw[1], rig.path);
  rectified = disparity (left, right, NULL);
  fail_unless (gst_buffer_map (calibrated, &a, GST_MAP_READ));
  fail_unless (gst_buffer_map (rectified, &b, GST_MAP_READ));
  fail_unless_equals_uint64 (a.size, b.size);
  fail_unless (memcmp (a.data, b.data, a.size) == 0,
      "the rectified views give another disparity than the calibration");
  for (gsize i = 0; i < a.size; i += 2)
    valid += GST_READ_UINT16_LE (a.data + i) != 0;
  /* a disparity worth comparing: most of the rig's scene is matched */
  fail_unless (valid > W * H / 2, "only %d pixels valid", valid);
  gst_buffer_unmap (calibrated, &a);
  gst_buffer_unmap (rectified, &b);

  gst_buffer_unref (calibrated);
  gst_buffer_unref (rectified);
  sd_rectification_free (rect);
  g_free (want);
  g_free (left);
  g_free (right);
  sd_check_rig_clear (&rig);
}

GST_END_TEST;

/* The remap of the sample at offset in each pixel of a plane of frame (a
 * component, or RGBx's padding byte) is in out at the same place: a byte,
 * or a 16-bit word whose value is depth bits from bit shift, the other
 * bits 0 (the remap of 16-bit values is checked in test-rectify). */
static void
check_part (const GstVideoFrame * in, const GstVideoFrame * out, gint plane,
    gint offset, gint pixel_stride, gint depth, gint shift, gint w, gint h,
    const gint32 * map, const gchar * what)
{
  const gint sin = GST_VIDEO_FRAME_PLANE_STRIDE (in, plane);
  const gint sout = GST_VIDEO_FRAME_PLANE_STRIDE (out, plane);
  const guint8 *src = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (in,
      plane) + offset;
  const guint8 *dst = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (out,
      plane) + offset;
  const guint mask = (1u << depth) - 1;
  guint16 *packed = g_new (guint16, (gsize) w * h);
  guint16 *want = g_new (guint16, (gsize) w * h);
  gint differ = 0;

  for (gint y = 0; y < h; y++)
    for (gint x = 0; x < w; x++) {
      const guint8 *s = src + y * sin + x * pixel_stride;
      packed[y * w + x] = depth > 8 ? (GST_READ_UINT16_LE (s) >> shift) &
          mask : *s;
    }
  sd_rectify_component16 (map, packed, 2 * w, want, 2 * w, 1, 16, 0, w, h);
  for (gint y = 0; y < h; y++)
    for (gint x = 0; x < w; x++) {
      const guint8 *d = dst + y * sout + x * pixel_stride;
      differ += (depth > 8 ? GST_READ_UINT16_LE (d) : *d) !=
          (guint) (want[y * w + x] << shift);
    }
  fail_unless (differ == 0, "%s: %d samples of plane %d at byte %d differ",
      what, differ, plane, offset);
  g_free (packed);
  g_free (want);
}

/* Every format of the pad template, at a width and height that leave a
 * half chroma sample at the right and bottom edges. */
GST_START_TEST (test_formats)
{
  const gint w = 161, h = 121;
  SdCheckRig rig;
  SdRectification *rect;
  GstElement *element;
  GstPadTemplate *templ;
  GstCaps *caps;
  char msg[256];

  sd_check_rig_setup (&rig, w, h);
  rect = sd_rectification_new (&rig.calib, w, h, msg, sizeof (msg));
  fail_unless (rect != NULL, "%s", msg);
  element = gst_element_factory_make ("stereorectify", NULL);
  templ = gst_element_get_pad_template (element, "sink");
  caps = gst_pad_template_get_caps (templ);
  gst_object_unref (element);
  {
    /* the system memory's (CUDA memory's come first where built) */
    const GValue *formats = gst_structure_get_value (gst_caps_get_structure
        (caps, gst_caps_get_size (caps) - 1), "format");

    fail_unless (gst_value_list_get_size (formats) >= 40);
    for (guint i = 0; i < gst_value_list_get_size (formats); i++) {
      const gchar *name =
          g_value_get_string (gst_value_list_get_value (formats, i));
      const GstVideoFormatInfo *f =
          gst_video_format_get_info (gst_video_format_from_string (name));
      GstHarness *hr = rectify_new (NULL, view_caps (GST_VIDEO_FORMAT_INFO_FORMAT
              (f), w, h, GST_VIDEO_MULTIVIEW_MODE_NONE, FALSE), "calibration",
          rig.path, "view", "right", NULL);
      GstVideoInfo info;
      GstVideoFrame in, out;
      GstBuffer *inbuf, *outbuf;
      gint cw, ch;
      gboolean whole = GST_VIDEO_FORMAT_INFO_N_PLANES (f) == 1;
      gint32 *cmap = NULL;

      gst_video_info_set_format (&info, GST_VIDEO_FORMAT_INFO_FORMAT (f), w,
          h);
      inbuf = sd_check_random_frame (&info, i + 1);
      fail_unless (gst_video_frame_map (&in, &info, inbuf, GST_MAP_READ));
      fail_unless_equals_int (gst_harness_push (hr, gst_buffer_ref (inbuf)),
          GST_FLOW_OK);
      outbuf = gst_harness_pull (hr);
      fail_unless (gst_video_frame_map (&out, &info, outbuf, GST_MAP_READ));

      for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (f); c++) {
        const gint sx = GST_VIDEO_FORMAT_INFO_W_SUB (f, c);
        const gint sy = GST_VIDEO_FORMAT_INFO_H_SUB (f, c);
        const gint32 *map = rect->map[1];

        if (sx || sy) {
          g_free (cmap);
          cmap = sd_rectify_map_subsampled (rect->map[1], w, h, sx, sy, &cw,
              &ch);
          map = cmap;
        }
        /* the words of P010's U and V are 2 bytes apart, though
         * GStreamer 1.22's format info says 1 */
        guint first = 0;

        while (GST_VIDEO_FORMAT_INFO_PLANE (f, first) !=
            GST_VIDEO_FORMAT_INFO_PLANE (f, c))
          first++;
        check_part (&in, &out, GST_VIDEO_FORMAT_INFO_PLANE (f, c),
            GST_VIDEO_FORMAT_INFO_DEPTH (f, c) > 8 ? 2 * (c - first) :
            GST_VIDEO_FORMAT_INFO_POFFSET (f, c),
            GST_VIDEO_FORMAT_INFO_PSTRIDE (f, c),
            GST_VIDEO_FORMAT_INFO_DEPTH (f, c),
            GST_VIDEO_FORMAT_INFO_SHIFT (f, c),
            sx || sy ? cw : w, sx || sy ? ch : h, map, name);
        whole = whole && !sx && !sy && GST_VIDEO_FORMAT_INFO_DEPTH (f, c) == 8;
      }
      /* every byte of a packed pixel is remapped, the x of RGBx too, so
       * that none goes out uninitialized */
      if (whole)
        for (gint k = 0; k < GST_VIDEO_FORMAT_INFO_PSTRIDE (f, 0); k++)
          check_part (&in, &out, 0, k, GST_VIDEO_FORMAT_INFO_PSTRIDE (f, 0),
              8, 0, w, h, rect->map[1], name);

      gst_video_frame_unmap (&in);
      gst_video_frame_unmap (&out);
      gst_buffer_unref (inbuf);
      gst_buffer_unref (outbuf);
      g_free (cmap);
      gst_harness_teardown (hr);
    }
  }
  gst_caps_unref (caps);
  sd_rectification_free (rect);
  sd_check_rig_clear (&rig);
}

GST_END_TEST;

/* Both views in one frame (a side-by-side or top-bottom camera), said by
 * the caps or by input-layout: each view comes out as it does from a frame
 * of its own, the view's size in caps without the packing, whichever view
 * the caps put first; views whose chroma the two would share are
 * refused. */
GST_START_TEST (test_packed)
{
  const gint w = 160, h = 120;
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_YUY2,
    GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_I420_10LE
  };
  SdCheckRig rig;

  sd_check_rig_setup (&rig, w, h);
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++) {
    const GstVideoFormat f = formats[i];
    const gchar *name = gst_video_format_to_string (f);
    GstVideoInfo info;
    GstBuffer *views[2], *alone[2];

    gst_video_info_set_format (&info, f, w, h);
    for (gint k = 0; k < 2; k++) {
      views[k] = sd_check_random_frame (&info, 100 * i + k + 1);
      alone[k] = rectify_one (&rig, view_caps (f, w, h,
              GST_VIDEO_MULTIVIEW_MODE_NONE, FALSE), k ? "right" : "left",
          gst_buffer_ref (views[k]));
    }
    /* the packing from the caps (top-bottom with the right view on top),
     * then from input-layout on caps that do not say it */
    for (gint variant = 0; variant < 4; variant++) {
      const gboolean sbs = variant % 2 == 0, from_caps = variant < 2;
      const gboolean right_first = from_caps && !sbs;
      GstBuffer *packed = sd_check_pack_views (f, views[right_first ? 1 : 0],
          views[right_first ? 0 : 1], w, h, sbs);

      for (gint k = 0; k < 2; k++) {
        GstHarness *hr = rectify_new (NULL, view_caps (f,
                sbs ? 2 * w : w, sbs ? h : 2 * h, !from_caps ?
                GST_VIDEO_MULTIVIEW_MODE_NONE : sbs ?
                GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE :
                GST_VIDEO_MULTIVIEW_MODE_TOP_BOTTOM, right_first),
            "calibration", rig.path, "view", k ? "right" : "left",
            "input-layout", from_caps ? "auto" : sbs ? "side-by-side" :
            "top-bottom", NULL);
        GstBuffer *out;
        GstCaps *caps;
        GstVideoInfo oinfo;

        fail_unless_equals_int (gst_harness_push (hr,
                gst_buffer_ref (packed)), GST_FLOW_OK);
        out = gst_harness_pull (hr);
        caps = gst_pad_get_current_caps (hr->sinkpad);
        fail_unless (gst_video_info_from_caps (&oinfo, caps));
        fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&oinfo), w);
        fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&oinfo), h);
        fail_unless (!gst_structure_has_field (gst_caps_get_structure (caps,
                    0), "multiview-mode"), "%" GST_PTR_FORMAT, caps);
        sd_check_assert_same_frame (out, alone[k], f, w, h, name);
        gst_caps_unref (caps);
        gst_buffer_unref (out);
        gst_harness_teardown (hr);
      }
      gst_buffer_unref (packed);
    }
    for (gint k = 0; k < 2; k++) {
      gst_buffer_unref (views[k]);
      gst_buffer_unref (alone[k]);
    }
  }

  /* 161-wide I420 views side by side would share a chroma column */
  {
    GstBus *bus = gst_bus_new ();
    GstVideoInfo info;
    GstHarness *hr;
    SdCheckRig odd;

    sd_check_rig_setup (&odd, 161, 120);
    hr = rectify_new (bus, view_caps (GST_VIDEO_FORMAT_I420, 322, 120,
            GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE, FALSE), "calibration",
        odd.path, NULL);
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 322, 120);
    fail_unless_equals_int (gst_harness_push (hr,
            sd_check_random_frame (&info, 9)), GST_FLOW_NOT_NEGOTIATED);
    sd_check_expect_error (bus, "161x120", "share chroma");
    gst_bus_set_flushing (bus, TRUE);
    gst_object_unref (bus);
    gst_harness_teardown (hr);
    sd_check_rig_clear (&odd);
  }
  sd_check_rig_clear (&rig);
}

GST_END_TEST;

/* A half-aspect packed frame's views were squeezed into it: the view that
 * comes out has pixels twice as wide (side by side) or tall (top-bottom) as
 * the frame's, as stereodepth's output says. */
GST_START_TEST (test_packed_half_aspect)
{
  static const struct
  {
    GstVideoMultiviewMode mode;
    gint par_n, par_d, view_par_n, view_par_d;
  } cases[] = {
    {GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE, 1, 1, 2, 1},
    {GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE, 1, 2, 1, 1},
    {GST_VIDEO_MULTIVIEW_MODE_TOP_BOTTOM, 1, 1, 1, 2},
    {GST_VIDEO_MULTIVIEW_MODE_TOP_BOTTOM, 4, 3, 2, 3},
  };
  const gint w = 160, h = 120;
  SdCheckRig rig;

  sd_check_rig_setup (&rig, w, h);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    const gboolean sbs = cases[i].mode == GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE;
    GstVideoInfo info;
    GstHarness *hr;
    GstCaps *caps;
    gint n, d;

    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8,
        sbs ? 2 * w : w, sbs ? h : 2 * h);
    GST_VIDEO_INFO_FPS_N (&info) = 30;
    GST_VIDEO_INFO_PAR_N (&info) = cases[i].par_n;
    GST_VIDEO_INFO_PAR_D (&info) = cases[i].par_d;
    GST_VIDEO_INFO_MULTIVIEW_MODE (&info) = cases[i].mode;
    caps = gst_video_info_to_caps (&info);
    /* as a demuxer says it: gst_video_info_to_caps would fold the flag
     * into the frame's aspect ratio */
    gst_caps_set_simple (caps, "multiview-flags",
        GST_TYPE_VIDEO_MULTIVIEW_FLAGSET, GST_VIDEO_MULTIVIEW_FLAGS_HALF_ASPECT,
        GST_FLAG_SET_MASK_EXACT, NULL);
    hr = rectify_new (NULL, caps, "calibration", rig.path, NULL);
    fail_unless_equals_int (gst_harness_push (hr,
            sd_check_random_frame (&info, i)), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (hr));
    caps = gst_pad_get_current_caps (hr->sinkpad);
    fail_unless (gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
            "pixel-aspect-ratio", &n, &d));
    fail_unless (n == cases[i].view_par_n && d == cases[i].view_par_d,
        "%s frames of %d:%d pixels gave %d:%d",
        gst_video_multiview_mode_to_caps_string (cases[i].mode),
        cases[i].par_n, cases[i].par_d, n, d);
    gst_caps_unref (caps);
    gst_harness_teardown (hr);
  }
  sd_check_rig_clear (&rig);
}

GST_END_TEST;

GST_START_TEST (test_errors)
{
  SdCheckRig rig;
  GstHarness *h;
  GstBus *bus;

  sd_check_start_fails ("stereorectify", NULL, NULL, "no calibration");
  sd_check_start_fails ("stereorectify", "/nonexistent/rig.yaml", NULL,
      "/nonexistent/rig.yaml");
  sd_check_start_fails ("stereorectify", NULL, "right.yaml",
      "calibration-right");

  /* the rig is 320x240; 320x200 frames are of another aspect ratio */
  sd_check_rig_setup (&rig, W, H);
  bus = gst_bus_new ();
  h = rectify_new (bus, view_caps (GST_VIDEO_FORMAT_GRAY8, W, 200,
          GST_VIDEO_MULTIVIEW_MODE_NONE, FALSE), "calibration", rig.path, NULL);
  fail_unless_equals_int (gst_harness_push (h,
          sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8, rig.raw[0], W, 200, 0)),
      GST_FLOW_NOT_NEGOTIATED);
  sd_check_expect_error (bus, "320x240", "320x200");
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  sd_check_rig_clear (&rig);
}

GST_END_TEST;

static Suite *
rectify_suite (void)
{
  Suite *s = suite_create ("stereorectify");
  TCase *tc = tcase_create ("rectify");

  tcase_add_test (tc, test_views_line_up);
  tcase_add_test (tc, test_formats);
  tcase_add_test (tc, test_packed);
  tcase_add_test (tc, test_packed_half_aspect);
  tcase_add_test (tc, test_errors);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (rectify);
