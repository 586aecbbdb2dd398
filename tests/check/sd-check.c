#include "sd-check.h"

#include <glib/gstdio.h>
#include <stdarg.h>
#include <string.h>

SdSynthPair sd_check_scene;

void
sd_check_scene_setup (void)
{
  fail_unless (sd_synth_demo (&sd_check_scene, SD_CHECK_WIDTH,
          SD_CHECK_HEIGHT));
}

void
sd_check_scene_teardown (void)
{
  sd_synth_free (&sd_check_scene);
}

void
sd_check_rig_setup (SdCheckRig * rig, gint width, gint height)
{
  char msg[256];

  rig->dir = g_dir_make_tmp ("sd-calib-XXXXXX", NULL);
  fail_unless (rig->dir != NULL);
  rig->path = g_build_filename (rig->dir, "rig.yaml", NULL);
  sd_rig_make (&rig->calib, width, height);
  sd_rig_scene_make (&rig->scene, &rig->calib);
  fail_unless (sd_rig_write_opencv_yaml (&rig->calib, rig->path, msg,
          sizeof (msg)), "%s", msg);
  for (gint j = 0; j < 2; j++) {
    rig->raw[j] = g_malloc ((gsize) width * height);
    sd_rig_render (&rig->calib, &rig->scene, j, rig->raw[j], width, height);
  }
}

void
sd_check_rig_clear (SdCheckRig * rig)
{
  g_unlink (rig->path);
  g_rmdir (rig->dir);
  g_free (rig->path);
  g_free (rig->dir);
  g_free (rig->raw[0]);
  g_free (rig->raw[1]);
}

GstVideoFormat *
sd_check_formats (guint * n)
{
  GstElementFactory *factory = gst_element_factory_find ("stereodepth");
  GstCaps *caps = NULL;
  const GValue *list;
  GstVideoFormat *formats;
  const GList *t;
  guint i;

  fail_unless (factory != NULL, "stereodepth is not in the registry");
  for (t = gst_element_factory_get_static_pad_templates (factory); t;
      t = t->next) {
    GstStaticPadTemplate *templ = t->data;

    if (g_str_equal (templ->name_template, "sink_right"))
      caps = gst_static_caps_get (&templ->static_caps);
  }
  fail_unless (caps != NULL);
  /* the last structure is system memory (CUDA memory comes first) */
  list = gst_structure_get_value (gst_caps_get_structure (caps,
          gst_caps_get_size (caps) - 1), "format");
  fail_unless (list != NULL && GST_VALUE_HOLDS_LIST (list));
  *n = gst_value_list_get_size (list);
  formats = g_new (GstVideoFormat, *n);
  for (i = 0; i < *n; i++) {
    formats[i] = gst_video_format_from_string (g_value_get_string
        (gst_value_list_get_value (list, i)));
    fail_unless (formats[i] != GST_VIDEO_FORMAT_UNKNOWN);
  }
  gst_caps_unref (caps);
  gst_object_unref (factory);
  return formats;
}

void
sd_check_params (SdParams * params)
{
  sd_params_init (params);
  params->num_disparities = SD_CHECK_DISPARITIES;
}

gboolean
sd_check_cuda_ready (void)
{
  return sd_check_cuda_device_ready (0);
}

gboolean
sd_check_cuda_device_ready (gint device)
{
  SdError err = { 0 };
  SdParams params;
  SdEngine *engine;

  sd_check_params (&params);
  engine = sd_engine_new ("cuda", device, &params, &err);
  if (!engine) {
    g_print ("skipped: %s\n", err.message);
    return FALSE;
  }
  sd_engine_free (engine);
  g_setenv ("CK_FORK", "no", TRUE);
  return TRUE;
}

static GstStaticPadTemplate harness_src = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate harness_sink = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

/* properties: NULL, or the name/value pairs after first_property. */
static void
pair_init (SdCheckPair * pair, gboolean live, gboolean link_right,
    const gchar * first_property, va_list * properties)
{
  pair->element = gst_element_factory_make ("stereodepth", NULL);
  fail_unless (pair->element != NULL, "stereodepth is not in the registry; "
      "is GST_PLUGIN_PATH the build's gst/ folder?");
  g_object_set (pair->element, "backend", 1 /* cpu */ ,
      "num-disparities", SD_CHECK_DISPARITIES, NULL);
  if (first_property)
    g_object_set_valist (G_OBJECT (pair->element), first_property,
        *properties);
  pair->bus = gst_bus_new ();
  gst_element_set_bus (pair->element, pair->bus);
  /* liveness is set before the harness starts the element: answered the
   * other way first, the aggregator may keep the first answer */
  pair->left = gst_harness_new_empty ();
  pair->right = gst_harness_new_empty ();
  gst_harness_set_live (pair->left, live);
  gst_harness_set_live (pair->right, live);
  gst_harness_add_element_full (pair->left, pair->element, &harness_src,
      "sink_left", &harness_sink, "src");
  if (link_right)
    sd_check_pair_link_right (pair);
  /* Without live sources the aggregator queues one buffer per pad unless
   * its latency allows more; the tests push one input ahead of the other
   * from one thread, as two real source threads would, so allow more. */
  if (!live)
    g_object_set (pair->element, "latency", 10 * GST_SECOND, NULL);
  gst_object_unref (pair->element);
}

void
sd_check_pair_init_with (SdCheckPair * pair, gboolean live,
    const gchar * first_property, ...)
{
  va_list properties;

  va_start (properties, first_property);
  pair_init (pair, live, TRUE, first_property, &properties);
  va_end (properties);
}

void
sd_check_pair_init (SdCheckPair * pair, gboolean live)
{
  sd_check_pair_init_with (pair, live, NULL, NULL);
}

void
sd_check_pair_init_unlinked_right (SdCheckPair * pair, gboolean live)
{
  pair_init (pair, live, FALSE, NULL, NULL);
}

void
sd_check_pair_link_right (SdCheckPair * pair)
{
  gst_harness_add_element_full (pair->right, pair->element, &harness_src,
      "sink_right", &harness_sink, NULL);
}

void
sd_check_pair_clear (SdCheckPair * pair)
{
  gst_harness_teardown (pair->right);
  gst_harness_teardown (pair->left);
  gst_bus_set_flushing (pair->bus, TRUE);
  gst_object_unref (pair->bus);
}

guint64
sd_check_get_u64 (GstElement * element, const gchar * name)
{
  guint64 v;

  g_object_get (element, name, &v, NULL);
  return v;
}

GError *
sd_check_wait_error (GstBus * bus)
{
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR);
  GError *err = NULL;

  fail_unless (msg != NULL, "no error message");
  gst_message_parse_error (msg, &err, NULL);
  gst_message_unref (msg);
  return err;
}

void
sd_check_expect_error (GstBus * bus, const gchar * what, const gchar * what2)
{
  GError *err = sd_check_wait_error (bus);

  fail_unless (strstr (err->message, what) != NULL, "%s", err->message);
  fail_unless (!what2 || strstr (err->message, what2) != NULL, "%s",
      err->message);
  g_error_free (err);
}

void
sd_check_start_fails (const gchar * factory, const gchar * calibration,
    const gchar * right, const gchar * what)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  GstBus *bus = gst_bus_new ();

  fail_unless (e != NULL, "%s is not in the registry", factory);
  gst_element_set_bus (e, bus);
  g_object_set (e, "calibration", calibration, "calibration-right", right,
      NULL);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  sd_check_expect_error (bus, what, NULL);
  gst_element_set_state (e, GST_STATE_NULL);
  /* the messages left on the bus hold the element */
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (e);
  gst_object_unref (bus);
}

gint
sd_check_pop_band_warning (GstBus * bus, const gchar * memory, gint height)
{
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 0, GST_MESSAGE_WARNING);
  GError *warning = NULL;
  const gchar *at;
  gint rows = 0;

  fail_unless (msg != NULL, "no warning about bands");
  gst_message_parse_warning (msg, &warning, NULL);
  at = strstr (warning->message, "bands of");
  fail_unless (at && sscanf (at, "bands of %d rows", &rows) == 1
      && strstr (warning->message, memory), "warning: %s", warning->message);
  fail_unless (rows > 0 && rows < height, "bands of %d rows", rows);
  g_error_free (warning);
  gst_message_unref (msg);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL,
      "more than one warning for one frame size");
  return rows;
}

void
sd_check_set_caps (GstHarness * h, const gchar * format, gint width,
    gint height)
{
  gst_harness_set_src_caps (h, gst_caps_new_simple ("video/x-raw",
          "format", G_TYPE_STRING, format, "width", G_TYPE_INT, width,
          "height", G_TYPE_INT, height, "framerate", GST_TYPE_FRACTION, 30, 1,
          "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1, NULL));
}

/* The value component c of a pixel gets: luma where the format has it (Y,
 * R, G, B or gray: equal R, G and B make luma equal to them), neutral
 * chroma, opaque alpha. */
static guint
component_value (const GstVideoFormatInfo * finfo, guint c, guint8 luma)
{
  if (GST_VIDEO_FORMAT_INFO_IS_YUV (finfo))
    return c == 0 ? luma : 128;
  return c < 3 ? luma : 255;
}

GstBuffer *
sd_check_frame_new (GstVideoFormat format, const guint8 * gray, gint width,
    gint height, GstClockTime pts)
{
  GstVideoInfo info;
  GstVideoAlignment align;
  GstVideoFrame frame;
  GstBuffer *buf;
  guint c, i;

  gst_video_info_set_format (&info, format, width, height);
  gst_video_alignment_reset (&align);
  align.padding_right = 7;
  align.padding_top = 1;
  fail_unless (gst_video_info_align (&info, &align));
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  gst_buffer_memset (buf, 0, 0xa5, GST_VIDEO_INFO_SIZE (&info));
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, format,
      width, height, GST_VIDEO_INFO_N_PLANES (&info), info.offset, info.stride);
  /* the meta describes the padded layout; the frame is the visible part */
  info.width = width;
  info.height = height;
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (&frame); c++) {
    gint cw = GST_VIDEO_FRAME_COMP_WIDTH (&frame, c);
    gint ch = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, c);
    gint x, y;

    for (y = 0; y < ch; y++) {
      for (x = 0; x < cw; x++) {
        guint8 *p = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (&frame, c) +
            y * GST_VIDEO_FRAME_COMP_STRIDE (&frame, c) +
            x * GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, c);
        guint v = component_value (frame.info.finfo, c,
            gray[y * width + x]);

        guint depth = GST_VIDEO_FRAME_COMP_DEPTH (&frame, c);

        /* wider samples: v in the top 8 of their bits, other bits
         * below it that the luma must not keep, at the sample's shift */
        if (depth > 8)
          GST_WRITE_UINT16_LE (p, ((v << (depth - 8)) | (0x5a & ((1u <<
                          (depth - 8)) - 1))) <<
              GST_VIDEO_FORMAT_INFO_SHIFT (frame.info.finfo, c));
        else
          *p = v;
      }
    }
  }
  gst_video_frame_unmap (&frame);

  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = SD_CHECK_FRAME;
  i = pts / SD_CHECK_FRAME;
  GST_BUFFER_OFFSET (buf) = i;
  GST_BUFFER_OFFSET_END (buf) = i + 1;
  return buf;
}

GstFlowReturn
sd_check_push_sized (SdCheckPair * pair, const guint8 * left,
    const guint8 * right, gint width, gint height, GstClockTime pts)
{
  GstFlowReturn ret = gst_harness_push (pair->left,
      sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8, left, width, height, pts));

  if (ret != GST_FLOW_OK)
    return ret;
  return gst_harness_push (pair->right,
      sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8, right, width, height, pts));
}

GstBuffer *
sd_check_run_one (SdCheckPair * pair, const guint8 * left,
    const guint8 * right, gint width, gint height)
{
  GstBuffer *buf;

  sd_check_set_caps (pair->left, "GRAY8", width, height);
  sd_check_set_caps (pair->right, "GRAY8", width, height);
  fail_unless_equals_int (sd_check_push_sized (pair, left, right, width,
          height, 0), GST_FLOW_OK);
  sd_check_finish (pair);
  buf = gst_harness_pull (pair->left);
  fail_unless (buf != NULL, "no output");
  return buf;
}

void
sd_check_push_pair (SdCheckPair * pair, const guint8 * left,
    const guint8 * right, GstClockTime pts)
{
  fail_unless_equals_int (sd_check_push_sized (pair, left, right,
          SD_CHECK_WIDTH, SD_CHECK_HEIGHT, pts), GST_FLOW_OK);
}

void
sd_check_finish (SdCheckPair * pair)
{
  GstEvent *event;

  gst_harness_push_event (pair->left, gst_event_new_eos ());
  gst_harness_push_event (pair->right, gst_event_new_eos ());
  while ((event = gst_harness_pull_event (pair->left))) {
    gboolean eos = GST_EVENT_TYPE (event) == GST_EVENT_EOS;

    gst_event_unref (event);
    if (eos)
      return;
  }
  fail ("no EOS on the output");
}

void
sd_check_expect_output (SdCheckPair * pair, GstClockTime pts,
    const guint16 * ref)
{
  GstBuffer *buf = gst_harness_pull (pair->left);

  fail_unless (buf != NULL);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), pts);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (buf), SD_CHECK_FRAME);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), pts / SD_CHECK_FRAME);
  fail_if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP));
  if (ref)
    sd_check_assert_output (buf, ref, SD_CHECK_WIDTH, SD_CHECK_HEIGHT);
  gst_buffer_unref (buf);
}

void
sd_check_assert_gap (GstBuffer * buf, GstClockTime pts)
{
  GstMapInfo map;
  gsize i, nonzero = 0;

  fail_unless (buf != NULL, "no output for the gap at %" GST_TIME_FORMAT,
      GST_TIME_ARGS (pts));
  fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), pts);
  fail_unless (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP),
      "the output at %" GST_TIME_FORMAT " is not flagged GAP",
      GST_TIME_ARGS (pts));
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless (map.size > 0);
  for (i = 0; i < map.size; i++)
    nonzero += map.data[i] != 0;
  gst_buffer_unmap (buf, &map);
  fail_unless_equals_uint64 (nonzero, 0);
}

/* Pushes a frame of gray at pts on h, or a gap there. */
static void
push_frame_or_gap (GstHarness * h, const guint8 * gray, gboolean gap,
    GstClockTime pts)
{
  if (gap)
    fail_unless (gst_harness_push_event (h, gst_event_new_gap (pts,
                SD_CHECK_FRAME)));
  else
    fail_unless_equals_int (gst_harness_push (h,
            sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8, gray, SD_CHECK_WIDTH,
                SD_CHECK_HEIGHT, pts)), GST_FLOW_OK);
}

void
sd_check_gaps (const gchar * backend, gint pairs_in_flight)
{
  /* per pair: which input has a gap there (0 none, 1 left, 2 right, 3 both) */
  static const guint gaps[] = { 0, 2, 0, 3, 0, 1, 1, 0 };
  SdParams params;
  guint16 *ref;
  SdCheckPair p;
  GstHarness *conf;
  GstMessage *msg;
  guint i, computed = 0, dropped = 0;

  sd_check_params (&params);
  ref = sd_check_reference (&params, sd_check_scene.left,
      sd_check_scene.right, SD_CHECK_WIDTH, SD_CHECK_HEIGHT);
  sd_check_pair_init_with (&p, FALSE, "pairs-in-flight", pairs_in_flight,
      NULL);
  gst_util_set_object_arg (G_OBJECT (p.element), "backend", backend);
  conf = gst_harness_new_with_element (p.element, NULL, "src_confidence");
  sd_check_set_caps (p.left, "GRAY8", SD_CHECK_WIDTH, SD_CHECK_HEIGHT);
  sd_check_set_caps (p.right, "GRAY8", SD_CHECK_WIDTH, SD_CHECK_HEIGHT);
  for (i = 0; i < G_N_ELEMENTS (gaps); i++) {
    const GstClockTime pts = i * SD_CHECK_FRAME;

    push_frame_or_gap (p.left, sd_check_scene.left, gaps[i] & 1, pts);
    push_frame_or_gap (p.right, sd_check_scene.right, gaps[i] & 2, pts);
    computed += gaps[i] == 0;
    dropped += gaps[i] == 1 || gaps[i] == 2;
  }
  sd_check_finish (&p);

  fail_unless_equals_int (gst_harness_buffers_in_queue (p.left),
      G_N_ELEMENTS (gaps));
  fail_unless_equals_int (gst_harness_buffers_in_queue (conf),
      G_N_ELEMENTS (gaps));
  for (i = 0; i < G_N_ELEMENTS (gaps); i++) {
    GstBuffer *c = gst_harness_pull (conf);

    if (gaps[i]) {
      GstBuffer *d = gst_harness_pull (p.left);

      sd_check_assert_gap (d, i * SD_CHECK_FRAME);
      sd_check_assert_gap (c, i * SD_CHECK_FRAME);
      gst_buffer_unref (d);
    } else {
      sd_check_expect_output (&p, i * SD_CHECK_FRAME, ref);
      fail_if (GST_BUFFER_FLAG_IS_SET (c, GST_BUFFER_FLAG_GAP));
    }
    gst_buffer_unref (c);
  }
  fail_unless_equals_uint64 (sd_check_get_u64 (p.element, "frames-processed"),
      computed);
  fail_unless_equals_uint64 (sd_check_get_u64 (p.element, "frames-dropped"),
      dropped);
  msg = gst_bus_pop_filtered (p.bus, GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
  fail_unless (msg == NULL, "unexpected %" GST_PTR_FORMAT, msg);
  gst_harness_teardown (conf);
  sd_check_pair_clear (&p);
  g_free (ref);
}

SdCheckImages *
sd_check_images_new (const SdParams * params, guint n)
{
  const guint w = SD_CHECK_WIDTH, h = SD_CHECK_HEIGHT;
  SdCheckImages *images = g_new0 (SdCheckImages, n);
  guint i, y;

  for (i = 0; i < n; i++) {
    for (y = 0; y < h; y++) {
      const guint from = (y + 7 * i) % h * w;

      memcpy (images[i].left + y * w, sd_check_scene.left + from, w);
      memcpy (images[i].right + y * w, sd_check_scene.right + from, w);
    }
    images[i].ref = sd_check_reference (params, images[i].left,
        images[i].right, w, h);
  }
  return images;
}

void
sd_check_images_free (SdCheckImages * images, guint n)
{
  guint i;

  for (i = 0; i < n; i++)
    g_free (images[i].ref);
  g_free (images);
}

void
sd_check_push_images (SdCheckPair * pair, const SdCheckImages * images,
    GstClockTime pts)
{
  sd_check_push_pair (pair, images->left, images->right, pts);
}

guint16 *
sd_check_reference_full (const SdParams * params, const guint8 * left,
    const guint8 * right, gint width, gint height, guint8 ** confidence)
{
  SdParams p = *params;
  SdError err = { 0 };
  SdEngine *engine;
  guint16 *out = g_new0 (guint16, width * height);
  SdPlane l = { (void *) left, width, height, width, SD_PIXEL_GRAY8 };
  SdPlane r = { (void *) right, width, height, width, SD_PIXEL_GRAY8 };
  SdPlane o = { out, width, height, width * 2, SD_PIXEL_GRAY16 };
  SdPlane c = { NULL, width, height, width, SD_PIXEL_GRAY8 };

  p.confidence = confidence != NULL;
  if (confidence)
    c.data = *confidence = g_new0 (guint8, width * height);
  engine = sd_engine_new ("cpu", 0, &p, &err);
  fail_unless (engine != NULL, "%s", err.message);
  fail_unless_equals_int (sd_engine_process (engine, &l, &r, &o,
          confidence ? &c : NULL, &err), SD_OK);
  sd_engine_free (engine);
  return out;
}

guint16 *
sd_check_reference (const SdParams * params, const guint8 * left,
    const guint8 * right, gint width, gint height)
{
  return sd_check_reference_full (params, left, right, width, height, NULL);
}

void
sd_check_assert_output (GstBuffer * buf, const guint16 * ref, gint width,
    gint height)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  gint x, y, differ = 0;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY16_LE, width, height);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_READ));
  for (y = 0; y < height; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
        0) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);

    for (x = 0; x < width; x++)
      differ += GST_READ_UINT16_LE (row + 2 * x) != ref[y * width + x];
  }
  gst_video_frame_unmap (&frame);
  fail_unless_equals_int (differ, 0);
}

static GMutex auto_lock;
static GPtrArray *auto_choices;

static void
collect_auto_choice (GstDebugCategory * category,
    G_GNUC_UNUSED GstDebugLevel level, G_GNUC_UNUSED const gchar * file,
    G_GNUC_UNUSED const gchar * function, G_GNUC_UNUSED gint line,
    G_GNUC_UNUSED GObject * object, GstDebugMessage * message,
    G_GNUC_UNUSED gpointer user_data)
{
  const gchar *text = gst_debug_message_get (message);
  const gchar *prefix = "backend=auto chose the ";

  if (g_str_equal (gst_debug_category_get_name (category), "stereodepth")
      && g_str_has_prefix (text, prefix)) {
    g_mutex_lock (&auto_lock);
    g_ptr_array_add (auto_choices,
        g_strndup (text + strlen (prefix), strcspn (text + strlen (prefix),
                " ")));
    g_mutex_unlock (&auto_lock);
  }
}

gchar *
sd_check_auto_backend (const guint8 * left, const guint8 * right)
{
  SdCheckPair pair;
  gchar *choice;
  guint i;

  auto_choices = g_ptr_array_new_with_free_func (g_free);
  gst_debug_set_threshold_for_name ("stereodepth", GST_LEVEL_INFO);
  gst_debug_add_log_function (collect_auto_choice, NULL, NULL);

  sd_check_pair_init (&pair, FALSE);
  gst_util_set_object_arg (G_OBJECT (pair.element), "backend", "auto");
  sd_check_set_caps (pair.left, "GRAY8", SD_CHECK_WIDTH, SD_CHECK_HEIGHT);
  sd_check_set_caps (pair.right, "GRAY8", SD_CHECK_WIDTH, SD_CHECK_HEIGHT);
  /* on CUDA, auto keeps a pair in flight until the next one or EOS */
  for (i = 0; i < 2; i++)
    sd_check_push_pair (&pair, left, right, i * SD_CHECK_FRAME);
  sd_check_finish (&pair);
  fail_unless_equals_int (gst_harness_buffers_received (pair.left), 2);
  sd_check_pair_clear (&pair);

  gst_debug_remove_log_function (collect_auto_choice);
  gst_debug_set_threshold_for_name ("stereodepth", GST_LEVEL_NONE);
  /* one message for the whole stream, not one per pair */
  fail_unless_equals_int (auto_choices->len, 1);
  choice = g_strdup (g_ptr_array_index (auto_choices, 0));
  g_ptr_array_unref (auto_choices);
  return choice;
}

/* A frame of format, every byte random (the padding bytes of RGBx
 * too). */
GstBuffer *
sd_check_random_frame (const GstVideoInfo * info, guint32 seed)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (gsize i = 0; i < map.size; i++) {
    seed = seed * 1664525u + 1013904223u;
    map.data[i] = (guint8) (seed >> 24);
  }
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* first and second (w x h frames of format) as one frame, side by side or
 * top-bottom: each plane's rows, or halves of them, copied. */
GstBuffer *
sd_check_pack_views (GstVideoFormat format, GstBuffer * first,
    GstBuffer * second, gint w, gint h, gboolean side_by_side)
{
  GstVideoInfo vinfo, pinfo;
  GstVideoFrame v[2], packed;
  GstBuffer *views[2] = { first, second };
  GstBuffer *out;

  gst_video_info_set_format (&vinfo, format, w, h);
  gst_video_info_set_format (&pinfo, format, side_by_side ? 2 * w : w,
      side_by_side ? h : 2 * h);
  out = gst_buffer_new_allocate (NULL, pinfo.size, NULL);
  fail_unless (gst_video_frame_map (&packed, &pinfo, out, GST_MAP_WRITE));
  for (gint k = 0; k < 2; k++)
    fail_unless (gst_video_frame_map (&v[k], &vinfo, views[k], GST_MAP_READ));
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&vinfo); p++) {
    guint c = 0;

    while (GST_VIDEO_FORMAT_INFO_PLANE (vinfo.finfo, c) != p)
      c++;
    {
      const gint bytes = GST_VIDEO_FRAME_COMP_WIDTH (&v[0], c) *
          GST_VIDEO_FRAME_COMP_PSTRIDE (&v[0], c);
      const gint rows = GST_VIDEO_FRAME_COMP_HEIGHT (&v[0], c);
      const gint ps = GST_VIDEO_FRAME_PLANE_STRIDE (&packed, p);
      guint8 *dst = GST_VIDEO_FRAME_PLANE_DATA (&packed, p);

      for (gint k = 0; k < 2; k++)
        for (gint y = 0; y < rows; y++)
          memcpy (dst + (side_by_side ? (gsize) y * ps + k * bytes :
                  (gsize) (k * rows + y) * ps),
              (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&v[k], p) +
              (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&v[k], p), bytes);
    }
  }
  for (gint k = 0; k < 2; k++)
    gst_video_frame_unmap (&v[k]);
  gst_video_frame_unmap (&packed);
  return out;
}

void
sd_check_assert_same_frame (GstBuffer * a, GstBuffer * b,
    GstVideoFormat format, gint w, gint h, const gchar * what)
{
  GstVideoInfo info;
  GstVideoFrame fa, fb;

  gst_video_info_set_format (&info, format, w, h);
  fail_unless (gst_video_frame_map (&fa, &info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, &info, b, GST_MAP_READ));
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    guint c = 0;

    while (GST_VIDEO_FORMAT_INFO_PLANE (info.finfo, c) != p)
      c++;
    for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, c); y++)
      fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p) +
              (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p),
              (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p) +
              (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p),
              GST_VIDEO_FRAME_COMP_WIDTH (&fa, c) *
              GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, c)) == 0,
          "%s: plane %u differs in row %d", what, p, y);
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
}

/* Whether format is one of cudaupload's in CUDA memory. */
gboolean
sd_check_cudaupload_gives (GstVideoFormat format)
{
  GstElementFactory *factory = gst_element_factory_find ("cudaupload");
  gboolean found = FALSE;
  const GList *t;

  for (t = gst_element_factory_get_static_pad_templates (factory); t;
      t = t->next) {
    GstStaticPadTemplate *templ = t->data;
    GstCaps *caps, *ours;

    if (templ->direction != GST_PAD_SRC)
      continue;
    caps = gst_static_caps_get (&templ->static_caps);
    ours = gst_caps_from_string (SD_CHECK_CUDA_CAPS);
    gst_caps_set_simple (ours, "format", G_TYPE_STRING,
        gst_video_format_to_string (format), NULL);
    found = gst_caps_can_intersect (caps, ours);
    gst_caps_unref (ours);
    gst_caps_unref (caps);
  }
  gst_object_unref (factory);
  return found;
}

/* Whether nvcodec's cudaupload is here, loaded. */
gboolean
sd_check_cudaupload_available (void)
{
  GstElementFactory *up = gst_element_factory_find ("cudaupload");

  if (!up) {
    g_print ("skipped: no cudaupload element (nvcodec)\n");
    return FALSE;
  }
  gst_object_unref (up);
  /* nvcodec 1.22 warns while it loads on a GPU without an encoder (the
   * H100): load it here, where gst-check does not count warnings */
  gst_object_unref (gst_plugin_load_by_name ("nvcodec"));
  return TRUE;
}
