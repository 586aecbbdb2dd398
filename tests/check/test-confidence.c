/* stereodepth's src_confidence pad: requested and released cleanly, the
 * engine's confidence bit for bit with the disparity's timestamps, 0 where
 * the disparity holds no match, its own stream (stream-start, GRAY8 caps,
 * segment, EOS, flushes) also when requested mid-stream, and a disparity
 * stream that goes on whatever happens to the confidence branch. */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>

#include "sd-check.h"

#define FRAME SD_CHECK_FRAME
#define CONFIDENCE_PAD "src_confidence"

#define scene sd_check_scene

static GstPadTemplate *
confidence_template (GstElement * e)
{
  return gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (e),
      CONFIDENCE_PAD);
}

GST_START_TEST (test_request_release)
{
  GstElement *e = gst_element_factory_make ("stereodepth", NULL);
  GstPadTemplate *templ = confidence_template (e);
  GstCaps *caps;
  GstPad *pad, *again;

  fail_unless (templ != NULL);
  fail_unless_equals_int (GST_PAD_TEMPLATE_DIRECTION (templ), GST_PAD_SRC);
  fail_unless_equals_int (GST_PAD_TEMPLATE_PRESENCE (templ), GST_PAD_REQUEST);
  caps = gst_pad_template_get_caps (templ);
  fail_unless_equals_int (gst_caps_get_size (caps), 1);
  fail_unless_equals_string (gst_structure_get_string (gst_caps_get_structure
          (caps, 0), "format"), "GRAY8");
  gst_caps_unref (caps);

  pad = gst_element_request_pad_simple (e, CONFIDENCE_PAD);
  fail_unless (pad != NULL);
  fail_unless_equals_string (GST_PAD_NAME (pad), CONFIDENCE_PAD);
  fail_unless_equals_int (e->numsrcpads, 2);

  /* one confidence stream: a second request is refused (GStreamer itself
   * complains about a second request by the same name) */
  fail_unless (gst_element_request_pad (e, templ, NULL, NULL) == NULL);
  ASSERT_CRITICAL (again = gst_element_request_pad_simple (e, CONFIDENCE_PAD));
  fail_unless (again == NULL);
  fail_unless_equals_int (e->numsrcpads, 2);

  /* names of no request template */
  fail_unless (gst_element_request_pad_simple (e, "src_confidence_1") == NULL);
  fail_unless (gst_element_request_pad_simple (e, "src") == NULL);
  fail_unless (gst_element_request_pad_simple (e, "sink_left") == NULL);

  gst_element_release_request_pad (e, pad);
  gst_object_unref (pad);
  fail_unless_equals_int (e->numsrcpads, 1);
  fail_unless (gst_element_get_static_pad (e, CONFIDENCE_PAD) == NULL);

  /* and it can be requested again */
  pad = gst_element_request_pad_simple (e, CONFIDENCE_PAD);
  fail_unless (pad != NULL);
  gst_element_release_request_pad (e, pad);
  gst_object_unref (pad);
  gst_object_unref (e);
}

GST_END_TEST;

static void
push_scene (SdCheckPair * p, const SdSynthPair * s, GstClockTime pts)
{
  fail_unless_equals_int (gst_harness_push (p->left,
          sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8, s->left, s->width,
              s->height, pts)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (p->right,
          sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8, s->right, s->width,
              s->height, pts)), GST_FLOW_OK);
}

/* The GRAY8 image of buf (packed rows; g_free), checking that caps are
 * GRAY8 of that size. */
static guint8 *
confidence_image (GstBuffer * buf, GstCaps * caps, gint width, gint height)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  guint8 *img = g_malloc (width * height);
  gint y;

  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&info),
      GST_VIDEO_FORMAT_GRAY8);
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), width);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), height);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_READ));
  for (y = 0; y < height; y++)
    memcpy (img + y * width, (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA
        (&frame, 0) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), width);
  gst_video_frame_unmap (&frame);
  return img;
}

/* Asserts that the next event of h has type, and returns it. */
static GstEvent *
expect_event (GstHarness * h, GstEventType type)
{
  GstEvent *event = gst_harness_pull_event (h);

  fail_unless (event != NULL, "no %s event", gst_event_type_get_name (type));
  fail_unless_equals_string (GST_EVENT_TYPE_NAME (event),
      gst_event_type_get_name (type));
  return event;
}

/* A new stream on the confidence pad: a stream-id of its own, GRAY8 caps of
 * the disparity's size, the disparity's segment. */
static void
expect_stream_start (GstHarness * conf, GstHarness * disparity)
{
  GstEvent *event = expect_event (conf, GST_EVENT_STREAM_START);
  const gchar *id;
  GstCaps *caps, *current, *disparity_caps;
  const GstSegment *segment;
  GstSegment disparity_segment;
  GstEvent *sticky;

  gst_event_parse_stream_start (event, &id);
  fail_unless (g_str_has_suffix (id, "/confidence"), "stream-id %s", id);
  gst_event_unref (event);

  event = expect_event (conf, GST_EVENT_CAPS);
  gst_event_parse_caps (event, &caps);
  current = gst_pad_get_current_caps (disparity->sinkpad);
  disparity_caps = gst_caps_copy (current);
  gst_caps_unref (current);
  gst_caps_set_simple (disparity_caps, "format", G_TYPE_STRING, "GRAY8", NULL);
  fail_unless (gst_caps_is_equal (caps, disparity_caps),
      "%" GST_PTR_FORMAT, caps);
  gst_caps_unref (disparity_caps);
  gst_event_unref (event);

  event = expect_event (conf, GST_EVENT_SEGMENT);
  gst_event_parse_segment (event, &segment);
  sticky = gst_pad_get_sticky_event (disparity->sinkpad, GST_EVENT_SEGMENT, 0);
  gst_event_copy_segment (sticky, &disparity_segment);
  fail_unless (gst_segment_is_equal (segment, &disparity_segment));
  gst_event_unref (sticky);
  gst_event_unref (event);
}

/* Pulls the next disparity and confidence buffers, checks that they have
 * the same timestamps and that the disparity is ref; returns the
 * confidence image (g_free). */
static guint8 *
pull_pair (SdCheckPair * p, GstHarness * conf, gint width, gint height,
    GstClockTime pts, const guint16 * ref)
{
  GstBuffer *d = gst_harness_pull (p->left);
  GstBuffer *c = gst_harness_pull (conf);
  GstCaps *caps = gst_pad_get_current_caps (conf->sinkpad);
  guint8 *img;

  fail_unless (d != NULL && c != NULL);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (d), pts);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (c), pts);
  fail_unless_equals_uint64 (GST_BUFFER_DTS (c), GST_BUFFER_DTS (d));
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (c), GST_BUFFER_DURATION (d));
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (c), GST_BUFFER_OFFSET (d));
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (c),
      GST_BUFFER_OFFSET_END (d));
  sd_check_assert_output (d, ref, width, height);
  img = confidence_image (c, caps, width, height);
  gst_caps_unref (caps);
  gst_buffer_unref (d);
  gst_buffer_unref (c);
  return img;
}

#define N_PAIRS 3

/* Runs N_PAIRS pairs of s with src_confidence linked from the start and
 * checks the confidence stream against the engine's; returns the
 * confidence (g_free). */
static guint8 *
run_confidence (const SdSynthPair * s, SdFillHoles fill_holes,
    gint pairs_in_flight)
{
  SdParams params;
  SdCheckPair p;
  GstHarness *conf;
  guint16 *ref;
  guint8 *ref_conf, *img = NULL;
  GstEvent *event;
  guint i;

  /* p2-adaptive and lr-check pinned: at auto, fill-holes would change the
   * matching and the check too, and these tests compare what filling alone
   * does */
  sd_check_params (&params);
  params.fill_holes = fill_holes;
  params.p2_adaptive = SD_P2_ADAPTIVE_OFF;
  params.lr_check = SD_LR_CHECK_KEPT;
  ref = sd_check_reference_full (&params, s->left, s->right, s->width,
      s->height, &ref_conf);

  sd_check_pair_init_with (&p, FALSE, "pairs-in-flight", pairs_in_flight,
      "fill-holes", fill_holes, "p2-adaptive", SD_P2_ADAPTIVE_OFF,
      "lr-check", SD_LR_CHECK_KEPT, NULL);
  conf = gst_harness_new_with_element (p.element, NULL, CONFIDENCE_PAD);
  sd_check_set_caps (p.left, "GRAY8", s->width, s->height);
  sd_check_set_caps (p.right, "GRAY8", s->width, s->height);
  for (i = 0; i < N_PAIRS; i++)
    push_scene (&p, s, i * FRAME);
  sd_check_finish (&p);

  fail_unless_equals_int (gst_harness_buffers_received (p.left), N_PAIRS);
  fail_unless_equals_int (gst_harness_buffers_received (conf), N_PAIRS);
  expect_stream_start (conf, p.left);
  for (i = 0; i < N_PAIRS; i++) {
    g_free (img);
    img = pull_pair (&p, conf, s->width, s->height, i * FRAME, ref);
    fail_unless (memcmp (img, ref_conf, s->width * s->height) == 0,
        "pair %u: the confidence is not the engine's", i);
  }
  event = expect_event (conf, GST_EVENT_EOS);
  gst_event_unref (event);

  gst_harness_teardown (conf);
  sd_check_pair_clear (&p);
  g_free (ref);
  g_free (ref_conf);
  return img;
}

/* What the confidence means: 0 exactly where the disparity holds no match
 * (with fill-holes off), and not all one value; fill-holes writes values
 * where the confidence stays 0, and changes nothing else. */
static void
check_confidence (const SdSynthPair * s, gint pairs_in_flight)
{
  SdParams params;
  guint16 *disparity;
  guint8 *off, *on;
  gint i, holes = 0, n = s->width * s->height;
  gboolean varies = FALSE;

  off = run_confidence (s, SD_FILL_HOLES_OFF, pairs_in_flight);
  on = run_confidence (s, SD_FILL_HOLES_ON, pairs_in_flight);
  sd_check_params (&params);
  params.fill_holes = SD_FILL_HOLES_OFF;
  params.p2_adaptive = SD_P2_ADAPTIVE_OFF;
  params.lr_check = SD_LR_CHECK_KEPT;
  disparity = sd_check_reference (&params, s->left, s->right, s->width,
      s->height);
  for (i = 0; i < n; i++) {
    fail_unless_equals_int (off[i] == 0, disparity[i] == 0);
    holes += disparity[i] == 0;
    varies |= off[i] != off[0];
  }
  /* holes for fill-holes to fill */
  fail_unless (holes > 0 && holes < n, "%d of %d pixels invalid", holes, n);
  fail_unless (varies, "the confidence is %u everywhere", off[0]);
  fail_unless (memcmp (off, on, n) == 0);
  g_free (disparity);
  g_free (off);
  g_free (on);
}

GST_START_TEST (test_confidence_output)
{
  SdSynthPair odd;

  check_confidence (&scene, 1);
  /* rows of 61 bytes padded to 64 in the buffer; two pairs in the engine */
  fail_unless (sd_synth_demo (&odd, 61, 45));
  check_confidence (&odd, 2);
  sd_synth_free (&odd);
}

GST_END_TEST;

/* Requested after two pairs: stream-start, caps and segment come before the
 * first confidence buffer, which belongs to the first pair after the
 * request.  Released mid-stream: the disparity goes on. */
GST_START_TEST (test_mid_stream)
{
  SdParams params;
  SdCheckPair p;
  GstHarness *conf;
  guint16 *ref;
  guint8 *ref_conf, *img;
  guint i;

  sd_check_params (&params);
  ref = sd_check_reference_full (&params, scene.left, scene.right,
      scene.width, scene.height, &ref_conf);
  sd_check_pair_init (&p, FALSE);
  sd_check_set_caps (p.left, "GRAY8", scene.width, scene.height);
  sd_check_set_caps (p.right, "GRAY8", scene.width, scene.height);
  for (i = 0; i < 2; i++) {
    push_scene (&p, &scene, i * FRAME);
    sd_check_expect_output (&p, i * FRAME, ref);
  }

  conf = gst_harness_new_with_element (p.element, NULL, CONFIDENCE_PAD);
  for (i = 2; i < 4; i++)
    push_scene (&p, &scene, i * FRAME);
  expect_stream_start (conf, p.left);
  for (i = 2; i < 4; i++) {
    img = pull_pair (&p, conf, scene.width, scene.height, i * FRAME, ref);
    fail_unless (memcmp (img, ref_conf, scene.width * scene.height) == 0);
    g_free (img);
  }
  fail_unless_equals_int (gst_harness_buffers_received (conf), 2);

  gst_harness_teardown (conf);
  fail_unless_equals_int (p.element->numsrcpads, 1);
  push_scene (&p, &scene, 4 * FRAME);
  sd_check_expect_output (&p, 4 * FRAME, ref);
  sd_check_finish (&p);
  sd_check_pair_clear (&p);
  g_free (ref);
  g_free (ref_conf);
}

GST_END_TEST;

/* Requested in PLAYING and left unlinked, then released: the disparity
 * stream does not notice. */
GST_START_TEST (test_unlinked)
{
  SdParams params;
  SdCheckPair p;
  GstPad *pad;
  guint16 *ref;

  sd_check_params (&params);
  ref = sd_check_reference (&params, scene.left, scene.right, scene.width,
      scene.height);
  sd_check_pair_init (&p, FALSE);
  /* before any data, and released again */
  pad = gst_element_request_pad_simple (p.element, CONFIDENCE_PAD);
  fail_unless (pad != NULL && GST_PAD_IS_ACTIVE (pad));
  gst_element_release_request_pad (p.element, pad);
  gst_object_unref (pad);

  pad = gst_element_request_pad_simple (p.element, CONFIDENCE_PAD);
  sd_check_set_caps (p.left, "GRAY8", scene.width, scene.height);
  sd_check_set_caps (p.right, "GRAY8", scene.width, scene.height);
  push_scene (&p, &scene, 0);
  sd_check_expect_output (&p, 0, ref);
  gst_element_release_request_pad (p.element, pad);
  gst_object_unref (pad);
  push_scene (&p, &scene, FRAME);
  sd_check_expect_output (&p, FRAME, ref);
  sd_check_finish (&p);
  sd_check_pair_clear (&p);
  g_free (ref);
}

GST_END_TEST;

/* A confidence branch that does not take GRAY8 stops the stream with an
 * error that says what to do. */
GST_START_TEST (test_not_negotiated)
{
  SdCheckPair p;
  GstHarness *conf;
  GError *err;

  sd_check_pair_init (&p, FALSE);
  conf = gst_harness_new_with_element (p.element, NULL, CONFIDENCE_PAD);
  gst_harness_set_sink_caps_str (conf, "video/x-raw, format=GRAY16_LE");
  sd_check_set_caps (p.left, "GRAY8", scene.width, scene.height);
  sd_check_set_caps (p.right, "GRAY8", scene.width, scene.height);
  push_scene (&p, &scene, 0);
  err = sd_check_wait_error (p.bus);
  fail_unless (strstr (err->message, CONFIDENCE_PAD) != NULL
      && strstr (err->message, "videoconvert") != NULL, "error: %s",
      err->message);
  g_error_free (err);
  gst_harness_teardown (conf);
  sd_check_pair_clear (&p);
}

GST_END_TEST;

#define PIPELINE_PAIRS 5

/* The launch line of the documentation: each src pad with its own queue.
 * Both sinks get every frame, with the same timestamps, and EOS (which
 * they post without waiting for their frames to be pulled); confidence
 * says whether src_confidence is requested, linked whether it is linked
 * too. */
static void
run_pipeline (gboolean confidence, gboolean linked)
{
  gchar *description = g_strdup_printf ("appsrc name=l format=time ! "
      "s.sink_left appsrc name=r format=time ! s.sink_right "
      "stereodepth name=s backend=cpu num-disparities=%d ! queue ! "
      "appsink name=d sync=false wait-on-eos=false %s",
      SD_CHECK_DISPARITIES, linked ? "s." CONFIDENCE_PAD " ! queue ! "
      "appsink name=c sync=false wait-on-eos=false" : "");
  GstElement *pipeline = gst_parse_launch (description, NULL);
  GstElement *s = gst_bin_get_by_name (GST_BIN (pipeline), "s");
  GstElement *srcs[2] = { gst_bin_get_by_name (GST_BIN (pipeline), "l"),
    gst_bin_get_by_name (GST_BIN (pipeline), "r")
  };
  const guint8 *images[2] = { scene.left, scene.right };
  GstAppSink *d = GST_APP_SINK (gst_bin_get_by_name (GST_BIN (pipeline),
          "d"));
  GstAppSink *c = linked ? GST_APP_SINK (gst_bin_get_by_name (GST_BIN
          (pipeline), "c")) : NULL;
  GstPad *pad = NULL;
  GstBus *bus = gst_element_get_bus (pipeline);
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format",
      G_TYPE_STRING, "GRAY8", "width", G_TYPE_INT, scene.width, "height",
      G_TYPE_INT, scene.height, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  GstMessage *msg;
  guint i, j;

  if (confidence && !linked)
    pad = gst_element_request_pad_simple (s, CONFIDENCE_PAD);
  for (j = 0; j < 2; j++)
    gst_app_src_set_caps (GST_APP_SRC (srcs[j]), caps);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < PIPELINE_PAIRS; i++)
    for (j = 0; j < 2; j++)
      fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (srcs[j]),
              sd_check_frame_new (GST_VIDEO_FORMAT_GRAY8, images[j],
                  scene.width, scene.height, i * FRAME)), GST_FLOW_OK);
  for (j = 0; j < 2; j++)
    gst_app_src_end_of_stream (GST_APP_SRC (srcs[j]));

  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "%" GST_PTR_FORMAT, msg);
  gst_message_unref (msg);
  for (i = 0; i < PIPELINE_PAIRS; i++) {
    GstSample *ds = gst_app_sink_try_pull_sample (d, 0);
    GstBuffer *db;

    fail_unless (ds != NULL);
    db = gst_sample_get_buffer (ds);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (db), i * FRAME);
    if (c) {
      GstSample *cs = gst_app_sink_try_pull_sample (c, 0);
      GstBuffer *cb;
      guint8 *img;

      fail_unless (cs != NULL);
      cb = gst_sample_get_buffer (cs);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (cb), GST_BUFFER_PTS (db));
      fail_unless_equals_uint64 (GST_BUFFER_DURATION (cb),
          GST_BUFFER_DURATION (db));
      img = confidence_image (cb, gst_sample_get_caps (cs), scene.width,
          scene.height);
      g_free (img);
      gst_sample_unref (cs);
    }
    gst_sample_unref (ds);
  }
  /* and nothing more: EOS with every frame pulled */
  fail_unless (gst_app_sink_try_pull_sample (d, 0) == NULL);
  fail_unless (gst_app_sink_is_eos (d));
  if (c) {
    fail_unless (gst_app_sink_is_eos (c));
    fail_unless (gst_app_sink_try_pull_sample (c, 0) == NULL);
  }

  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  if (pad) {
    gst_element_release_request_pad (s, pad);
    gst_object_unref (pad);
  }
  gst_caps_unref (caps);
  gst_object_unref (bus);
  if (c)
    gst_object_unref (c);
  gst_object_unref (d);
  for (j = 0; j < 2; j++)
    gst_object_unref (srcs[j]);
  gst_object_unref (s);
  gst_object_unref (pipeline);
  g_free (description);
}

GST_START_TEST (test_pipeline)
{
  run_pipeline (TRUE, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_pipeline_unlinked)
{
  run_pipeline (TRUE, FALSE);
}

GST_END_TEST;

GST_START_TEST (test_pipeline_without_pad)
{
  run_pipeline (FALSE, FALSE);
}

GST_END_TEST;

/* The next frame of each of the two sinks (preroll: the one it prerolled
 * on) is the one at pts. */
static void
expect_pts (GstElement ** sinks, gboolean preroll, GstClockTime pts)
{
  guint i;

  for (i = 0; i < 2; i++) {
    GstAppSink *sink = GST_APP_SINK (sinks[i]);
    GstSample *sample = preroll ? gst_app_sink_pull_preroll (sink) :
        gst_app_sink_pull_sample (sink);

    fail_unless (sample != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (gst_sample_get_buffer
            (sample)), pts);
    gst_sample_unref (sample);
  }
}

/* A flushing seek of the pipeline flushes both branches, and both go on
 * from the seek position. */
GST_START_TEST (test_flushing_seek)
{
  GstElement *pipeline = gst_parse_launch ("stereodepth name=s backend=cpu "
      "num-disparities=16 ! queue ! appsink name=d sync=false "
      "s." CONFIDENCE_PAD " ! queue ! appsink name=c sync=false "
      "videotestsrc pattern=snow num-buffers=30 ! "
      "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1 ! "
      "s.sink_left videotestsrc pattern=snow num-buffers=30 ! "
      "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1 ! "
      "s.sink_right", NULL);
  GstElement *sinks[2] = { gst_bin_get_by_name (GST_BIN (pipeline), "d"),
    gst_bin_get_by_name (GST_BIN (pipeline), "c")
  };
  guint i;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  expect_pts (sinks, TRUE, 0);
  fail_unless (gst_element_seek_simple (pipeline, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, GST_SECOND / 2));
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  expect_pts (sinks, FALSE, GST_SECOND / 2);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  for (i = 0; i < 2; i++)
    gst_object_unref (sinks[i]);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static GstPadProbeReturn
count_buffer (G_GNUC_UNUSED GstPad * pad,
    G_GNUC_UNUSED GstPadProbeInfo * info, gpointer user_data)
{
  g_atomic_int_inc ((gint *) user_data);
  return GST_PAD_PROBE_OK;
}

/* Requested, linked to a new sink, unlinked and released again and again
 * while pairs stream through, the pad neither stops nor disturbs the
 * disparity stream, and its sinks get a stream (GStreamer warns of a
 * buffer before stream-start or caps). */
GST_START_TEST (test_request_release_while_playing)
{
  GstElement *pipeline = gst_parse_launch ("stereodepth name=s backend=cpu "
      "num-disparities=16 ! fakesink sync=false "
      "videotestsrc pattern=snow num-buffers=40 ! "
      "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1 ! "
      "s.sink_left videotestsrc pattern=snow num-buffers=40 ! "
      "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1 ! "
      "s.sink_right", NULL);
  GstElement *s = gst_bin_get_by_name (GST_BIN (pipeline), "s");
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = NULL;
  guint64 processed;
  gint confidence_buffers = 0;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while (!msg) {
    GstPad *pad = gst_element_request_pad_simple (s, CONFIDENCE_PAD);
    GstElement *sink = gst_element_factory_make ("fakesink", NULL);

    fail_unless (pad != NULL);
    /* its state is the test's alone, not the pipeline's as well */
    g_object_set (sink, "sync", FALSE, "async", FALSE, NULL);
    gst_element_set_locked_state (sink, TRUE);
    gst_bin_add (GST_BIN (pipeline), sink);
    gst_element_set_state (sink, GST_STATE_PLAYING);
    fail_unless (gst_element_link_pads (s, CONFIDENCE_PAD, sink, "sink"));
    gst_pad_add_probe (GST_PAD_PEER (pad), GST_PAD_PROBE_TYPE_BUFFER,
        count_buffer, &confidence_buffers, NULL);
    g_usleep (500);
    gst_element_release_request_pad (s, pad);
    gst_object_unref (pad);
    gst_element_set_state (sink, GST_STATE_NULL);
    gst_bin_remove (GST_BIN (pipeline), sink);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  }
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  g_object_get (s, "frames-processed", &processed, NULL);
  fail_unless_equals_uint64 (processed, 40);
  fail_unless (g_atomic_int_get (&confidence_buffers) > 0);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (s);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static Suite *
confidence_suite (void)
{
  Suite *s = suite_create ("stereodepth-confidence");
  TCase *tc = tcase_create ("confidence");

  tcase_add_checked_fixture (tc, sd_check_scene_setup,
      sd_check_scene_teardown);
  tcase_add_test (tc, test_request_release);
  tcase_add_test (tc, test_confidence_output);
  tcase_add_test (tc, test_mid_stream);
  tcase_add_test (tc, test_unlinked);
  tcase_add_test (tc, test_not_negotiated);
  tcase_add_test (tc, test_pipeline);
  tcase_add_test (tc, test_pipeline_unlinked);
  tcase_add_test (tc, test_pipeline_without_pad);
  tcase_add_test (tc, test_flushing_seek);
  tcase_add_test (tc, test_request_release_while_playing);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (confidence);
