/* stereodepth with frames in CUDA memory (cudaupload in front of it): the
 * same bits as the CPU engine for each format cudaupload gives,
 * one GstCudaContext shared by cudaupload and two stereodepth instances,
 * and inputs that move from system to CUDA memory mid-stream.  Skips (77)
 * without cudaupload (nvcodec), a CUDA device or the CUDA backend. */
#include "sd-check.h"

#include <gst/app/app.h>

#define W SD_CHECK_WIDTH
#define H SD_CHECK_HEIGHT
#define scene sd_check_scene

/* One side: appsrc, then cudaupload, then a capsfilter that says which
 * memory stereodepth receives. */
#define SIDE(name, pad) \
    "appsrc name=" name " format=time ! cudaupload name=up_" name \
    " ! capsfilter name=mem_" name " ! s." pad " "

typedef struct
{
  GstElement *pipeline, *left, *right, *sink;
} Pipeline;

/* Sets both capsfilters to memory: upstream renegotiates at the next
 * frame. */
static void
pipeline_set_memory (Pipeline * p, const gchar * memory)
{
  GstCaps *mem = gst_caps_from_string (memory);

  for (guint i = 0; i < 2; i++) {
    GstElement *f = gst_bin_get_by_name (GST_BIN (p->pipeline),
        i ? "mem_r" : "mem_l");
    g_object_set (f, "caps", mem, NULL);
    gst_object_unref (f);
  }
  gst_caps_unref (mem);
}

static void
pipeline_init (Pipeline * p, const gchar * format, const gchar * memory)
{
  GstCaps *in = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      format, "width", G_TYPE_INT, W, "height", G_TYPE_INT, H, "framerate",
      GST_TYPE_FRACTION, 30, 1, NULL);
  gchar *desc = g_strdup_printf ("stereodepth name=s backend=cuda "
      "num-disparities=%d ! appsink name=out sync=false "
      SIDE ("l", "sink_left") SIDE ("r", "sink_right"), SD_CHECK_DISPARITIES);
  GError *error = NULL;

  p->pipeline = gst_parse_launch (desc, &error);
  fail_unless (p->pipeline != NULL, "%s", error ? error->message : "");
  g_free (desc);
  p->left = gst_bin_get_by_name (GST_BIN (p->pipeline), "l");
  p->right = gst_bin_get_by_name (GST_BIN (p->pipeline), "r");
  p->sink = gst_bin_get_by_name (GST_BIN (p->pipeline), "out");
  g_object_set (p->left, "caps", in, NULL);
  g_object_set (p->right, "caps", in, NULL);
  pipeline_set_memory (p, memory);
  gst_caps_unref (in);
  fail_unless (gst_element_set_state (p->pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
}

/* Pushes the scene's pair at frame i and checks the output against ref. */
static void
pipeline_pair (Pipeline * p, GstVideoFormat format, guint i,
    const guint16 * ref)
{
  const GstClockTime pts = i * SD_CHECK_FRAME;
  GstSample *sample;

  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (p->left),
          sd_check_frame_new (format, scene.left, W, H, pts)), GST_FLOW_OK);
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (p->right),
          sd_check_frame_new (format, scene.right, W, H, pts)), GST_FLOW_OK);
  /* two pairs may be in flight: the output of pair i can wait for i + 1 */
  if (i == 0)
    return;
  sample = gst_app_sink_try_pull_sample (GST_APP_SINK (p->sink),
      10 * GST_SECOND);
  fail_unless (sample != NULL, "no output for pair %u", i - 1);
  sd_check_assert_output (gst_sample_get_buffer (sample), ref, W, H);
  gst_sample_unref (sample);
}

static void
pipeline_finish (Pipeline * p, const guint16 * ref)
{
  GstSample *sample;

  gst_app_src_end_of_stream (GST_APP_SRC (p->left));
  gst_app_src_end_of_stream (GST_APP_SRC (p->right));
  sample = gst_app_sink_try_pull_sample (GST_APP_SINK (p->sink),
      10 * GST_SECOND);
  fail_unless (sample != NULL, "no output for the last pair");
  sd_check_assert_output (gst_sample_get_buffer (sample), ref, W, H);
  gst_sample_unref (sample);
  fail_unless (gst_app_sink_is_eos (GST_APP_SINK (p->sink))
      || gst_app_sink_try_pull_sample (GST_APP_SINK (p->sink),
          10 * GST_SECOND) == NULL);
}

static void
pipeline_clear (Pipeline * p)
{
  gst_element_set_state (p->pipeline, GST_STATE_NULL);
  gst_object_unref (p->left);
  gst_object_unref (p->right);
  gst_object_unref (p->sink);
  gst_object_unref (p->pipeline);
}

static guint16 *
cpu_reference (void)
{
  SdParams params;

  sd_check_params (&params);
  return sd_check_reference (&params, scene.left, scene.right, W, H);
}

/* Every format that both cudaupload and stereodepth take in CUDA memory. */
GST_START_TEST (test_cuda_memory_formats)
{
  guint16 *ref = cpu_reference ();
  guint n, tried = 0;
  GstVideoFormat *formats = sd_check_formats (&n);

  for (guint f = 0; f < n; f++) {
    Pipeline p;

    if (!sd_check_cudaupload_gives (formats[f]))
      continue;
    GST_INFO ("%s in CUDA memory", gst_video_format_to_string (formats[f]));
    pipeline_init (&p, gst_video_format_to_string (formats[f]),
        SD_CHECK_CUDA_CAPS);
    for (guint i = 0; i < 4; i++)
      pipeline_pair (&p, formats[f], i, ref);
    pipeline_finish (&p, ref);
    pipeline_clear (&p);
    tried++;
  }
  /* GStreamer 1.22's cudaupload gives NV12, I420, YV12, Y42B and Y444 at
   * least */
  fail_unless (tried >= 5, "only %u formats tried", tried);
  g_free (formats);
  g_free (ref);
}

GST_END_TEST;

/* The object a "gst.cuda.context" GstContext of element holds. */
static GObject *
cuda_context_of (GstElement * element)
{
  GstContext *context = gst_element_get_context (element,
      "gst.cuda.context");
  const GValue *v;
  GObject *object;

  fail_unless (context != NULL, "%s has no CUDA context",
      GST_ELEMENT_NAME (element));
  v = gst_structure_get_value (gst_context_get_structure (context),
      "gst.cuda.context");
  fail_unless (v != NULL && G_VALUE_HOLDS_OBJECT (v));
  object = g_value_get_object (v);
  gst_context_unref (context);
  return object;
}

GST_START_TEST (test_cuda_context_shared)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=NV12,width=64,height=48 ! cudaupload name=up ! "
      "video/x-raw(memory:CUDAMemory) ! tee name=t "
      "t. ! queue ! a.sink_left t. ! queue ! a.sink_right "
      "t. ! queue ! b.sink_left t. ! queue ! b.sink_right "
      "stereodepth name=a num-disparities=16 ! fakesink "
      "stereodepth name=b num-disparities=16 ! fakesink", &error);
  GstElement *up, *a, *b;
  GstMessage *msg;

  fail_unless (pipeline != NULL, "%s", error ? error->message : "");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      20 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "the pipeline did not reach EOS");
  gst_message_unref (msg);
  up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  a = gst_bin_get_by_name (GST_BIN (pipeline), "a");
  b = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  fail_unless (cuda_context_of (a) == cuda_context_of (up));
  fail_unless (cuda_context_of (b) == cuda_context_of (up));
  gst_object_unref (up);
  gst_object_unref (a);
  gst_object_unref (b);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* System memory first, CUDA memory from the third pair on: the engine
 * moves into the CUDA context without losing a pair or a bit. */
GST_START_TEST (test_cuda_memory_renegotiation)
{
  guint16 *ref = cpu_reference ();
  Pipeline p;

  pipeline_init (&p, "NV12", "video/x-raw");
  for (guint i = 0; i < 6; i++) {
    if (i == 3)
      pipeline_set_memory (&p, SD_CHECK_CUDA_CAPS);
    pipeline_pair (&p, GST_VIDEO_FORMAT_NV12, i, ref);
  }
  pipeline_finish (&p, ref);
  pipeline_clear (&p);
  g_free (ref);
}

GST_END_TEST;

static Suite *
cuda_memory_suite (void)
{
  Suite *s = suite_create ("stereodepth-cuda-memory");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, sd_check_scene_setup,
      sd_check_scene_teardown);
  tcase_add_test (tc, test_cuda_memory_formats);
  tcase_add_test (tc, test_cuda_context_shared);
  tcase_add_test (tc, test_cuda_memory_renegotiation);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  if (!sd_check_cudaupload_available () || !sd_check_cuda_ready ())
    return 77;
  return gst_check_run_suite (cuda_memory_suite (), "stereodepth-cuda-memory",
      __FILE__);
}
