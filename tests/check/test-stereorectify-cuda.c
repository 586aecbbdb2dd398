/* stereorectify on frames in CUDA memory (cudaupload in front of it,
 * cudadownload behind): every format both it and cudaupload take, and
 * both views of side-by-side and top-bottom frames, come out with the very
 * bytes of the host remap, remapped on the GPU (each output buffer is CUDA
 * memory written through a device mapping, so the element used the
 * context cudaupload shares); so do frames whose memory changes
 * mid-stream, and frames of a context not the element's (through the
 * host).  Skips (77) without cudaupload (nvcodec) or a CUDA device. */
#include "sd-check.h"

#include <gst/app/app.h>
#define GST_USE_UNSTABLE_API
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

/* frames pushed a run: the second reuses the pool's buffers */
#define FRAMES 2

/* Counts the buffers written on the GPU: their host copy is stale. */
static GstPadProbeReturn
count_written_on_gpu (G_GNUC_UNUSED GstPad * pad, GstPadProbeInfo * info,
    gpointer count)
{
  GstMemory *mem =
      gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info), 0);

  if (gst_is_cuda_memory (mem)
      && GST_MEMORY_FLAG_IS_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_DOWNLOAD))
    g_atomic_int_inc ((gint *) count);
  return GST_PAD_PROBE_OK;
}

/* A pipeline of stereorectify with calibration and view: appsrc (caps),
 * then, unless memory is NULL, cudaupload and a capsfilter of memory, the
 * element, cudadownload; appsink.  on_gpu counts the outputs written on
 * the GPU. */
typedef struct
{
  GstElement *pipeline, *src, *sink, *up, *mem, *r;
  gint on_gpu;
  guint pushed;
} Run;

/* From the next frame on, the frames come in memory. */
static void
run_set_memory (Run * run, const gchar * memory)
{
  GstCaps *caps = gst_caps_from_string (memory);

  g_object_set (run->mem, "caps", caps, NULL);
  gst_caps_unref (caps);
}

static void
run_init (Run * run, const gchar * calibration, GstCaps * caps,
    const gchar * view, const gchar * memory)
{
  gchar *desc = g_strdup_printf ("appsrc name=in format=time ! %s "
      "stereorectify name=r calibration=\"%s\" view=%s ! %s "
      "appsink name=out sync=false", memory ? "cudaupload name=up ! "
      "capsfilter name=mem !" : "", calibration, view,
      memory ? "cudadownload ! video/x-raw !" : "");
  GError *error = NULL;
  GstPad *pad;

  run->pipeline = gst_parse_launch (desc, &error);
  fail_unless (run->pipeline != NULL, "%s", error ? error->message : "");
  g_free (desc);
  run->src = gst_bin_get_by_name (GST_BIN (run->pipeline), "in");
  run->sink = gst_bin_get_by_name (GST_BIN (run->pipeline), "out");
  run->r = gst_bin_get_by_name (GST_BIN (run->pipeline), "r");
  run->up = gst_bin_get_by_name (GST_BIN (run->pipeline), "up");
  run->mem = gst_bin_get_by_name (GST_BIN (run->pipeline), "mem");
  run->on_gpu = 0;
  run->pushed = 0;
  pad = gst_element_get_static_pad (run->r, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_written_on_gpu,
      &run->on_gpu, NULL);
  gst_object_unref (pad);
  g_object_set (run->src, "caps", caps, NULL);
  if (memory)
    run_set_memory (run, memory);
}

static void
run_play (Run * run)
{
  fail_unless (gst_element_set_state (run->pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
}

static void
run_push (Run * run, GstBuffer * in)
{
  GstBuffer *frame = gst_buffer_copy (in);

  GST_BUFFER_PTS (frame) = run->pushed++ * GST_SECOND / 30;
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (run->src),
          frame), GST_FLOW_OK);
}

static GstBuffer *
run_pull (Run * run)
{
  GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (run->sink),
      10 * GST_SECOND);
  GstBuffer *out;

  fail_unless (sample != NULL, "no output");
  out = gst_buffer_ref (gst_sample_get_buffer (sample));
  gst_sample_unref (sample);
  return out;
}

static void
run_clear (Run * run)
{
  gst_element_set_state (run->pipeline, GST_STATE_NULL);
  gst_clear_object (&run->up);
  gst_clear_object (&run->mem);
  gst_object_unref (run->r);
  gst_object_unref (run->src);
  gst_object_unref (run->sink);
  gst_object_unref (run->pipeline);
}

/* in (caps) FRAMES times through stereorectify with calibration and view,
 * in system memory or (cuda) between cudaupload and cudadownload; the
 * outputs in out, the count of those written on the GPU returned. */
static gint
rectify (const gchar * calibration, GstCaps * caps, const gchar * view,
    gboolean cuda, GstBuffer * in, GstBuffer * out[FRAMES])
{
  Run run;
  gint on_gpu;

  run_init (&run, calibration, caps, view, cuda ? SD_CHECK_CUDA_CAPS : NULL);
  run_play (&run);
  for (guint i = 0; i < FRAMES; i++)
    run_push (&run, in);
  gst_app_src_end_of_stream (GST_APP_SRC (run.src));
  for (guint i = 0; i < FRAMES; i++)
    out[i] = run_pull (&run);
  on_gpu = g_atomic_int_get (&run.on_gpu);
  run_clear (&run);
  return on_gpu;
}

/* in (caps, whose view is w x h of format) through the host and through
 * the GPU: the same bytes, every output remapped on the GPU. */
static void
assert_gpu_as_host (const gchar * calibration, GstCaps * caps,
    const gchar * view, GstBuffer * in, GstVideoFormat format, gint w, gint h,
    const gchar * what)
{
  GstBuffer *host[FRAMES], *gpu[FRAMES];

  fail_unless_equals_int (rectify (calibration, caps, view, FALSE, in, host),
      0);
  fail_unless_equals_int (rectify (calibration, caps, view, TRUE, in, gpu),
      FRAMES);
  for (guint i = 0; i < FRAMES; i++) {
    sd_check_assert_same_frame (host[i], gpu[i], format, w, h, what);
    gst_buffer_unref (host[i]);
    gst_buffer_unref (gpu[i]);
  }
}

/* Every format of the CUDA memory template that cudaupload gives, at a
 * size that leaves half chroma samples at the right and bottom edges. */
GST_START_TEST (test_cuda_formats)
{
  const gint w = 161, h = 121;
  GstElement *element = gst_element_factory_make ("stereorectify", NULL);
  GstCaps *templ = gst_pad_template_get_caps (gst_element_get_pad_template
      (element, "sink"));
  const GstCapsFeatures *features = gst_caps_get_features (templ, 0);
  const GValue *formats = gst_structure_get_value (gst_caps_get_structure
      (templ, 0), "format");
  SdCheckRig rig;
  guint tried = 0;

  gst_object_unref (element);
  fail_unless (gst_caps_features_contains (features,
          GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));
  sd_check_rig_setup (&rig, w, h);
  for (guint i = 0; i < gst_value_list_get_size (formats); i++) {
    const GstVideoFormat f = gst_video_format_from_string (g_value_get_string
        (gst_value_list_get_value (formats, i)));
    GstVideoInfo info;
    GstCaps *caps;
    GstBuffer *in;

    if (!sd_check_cudaupload_gives (f))
      continue;
    GST_INFO ("%s", gst_video_format_to_string (f));
    gst_video_info_set_format (&info, f, w, h);
    GST_VIDEO_INFO_FPS_N (&info) = 30;
    caps = gst_video_info_to_caps (&info);
    in = sd_check_random_frame (&info, i + 1);
    assert_gpu_as_host (rig.path, caps, "right", in, f, w, h,
        gst_video_format_to_string (f));
    gst_buffer_unref (in);
    gst_caps_unref (caps);
    tried++;
  }
  /* GStreamer 1.22's cudaupload gives all 20 */
  fail_unless (tried >= 14, "only %u formats tried", tried);
  gst_caps_unref (templ);
  sd_check_rig_clear (&rig);
}

GST_END_TEST;

/* Both views of a frame that packs them, side by side and top-bottom:
 * each view's planes start inside the frame's. */
GST_START_TEST (test_cuda_packed)
{
  const gint w = 160, h = 120;
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_P010_10LE
  };
  SdCheckRig rig;

  sd_check_rig_setup (&rig, w, h);
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++) {
    const GstVideoFormat f = formats[i];
    GstVideoInfo vinfo;
    GstBuffer *views[2];

    if (!sd_check_cudaupload_gives (f))
      continue;
    gst_video_info_set_format (&vinfo, f, w, h);
    for (gint k = 0; k < 2; k++)
      views[k] = sd_check_random_frame (&vinfo, 10 * i + k + 1);
    for (gint sbs = 0; sbs < 2; sbs++) {
      GstBuffer *packed = sd_check_pack_views (f, views[0], views[1], w, h,
          sbs);
      GstVideoInfo pinfo;
      GstCaps *caps;

      gst_video_info_set_format (&pinfo, f, sbs ? 2 * w : w, sbs ? h : 2 * h);
      GST_VIDEO_INFO_FPS_N (&pinfo) = 30;
      GST_VIDEO_INFO_MULTIVIEW_MODE (&pinfo) = sbs ?
          GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE :
          GST_VIDEO_MULTIVIEW_MODE_TOP_BOTTOM;
      caps = gst_video_info_to_caps (&pinfo);
      for (gint k = 0; k < 2; k++) {
        gchar *what = g_strdup_printf ("%s %s, %s view",
            gst_video_format_to_string (f), sbs ? "side by side" :
            "top-bottom", k ? "right" : "left");

        assert_gpu_as_host (rig.path, caps, k ? "right" : "left", packed, f,
            w, h, what);
        g_free (what);
      }
      gst_caps_unref (caps);
      gst_buffer_unref (packed);
    }
    for (gint k = 0; k < 2; k++)
      gst_buffer_unref (views[k]);
  }
  sd_check_rig_clear (&rig);
}

GST_END_TEST;

/* A 160x120 frame of format, random from seed, with its caps and the
 * host remaps of view (FRAMES of them): what the GPU is held to. */
typedef struct
{
  SdCheckRig rig;
  GstVideoFormat format;
  GstCaps *caps;
  GstBuffer *in, *host[FRAMES];
} Case;

#define CASE_W 160
#define CASE_H 120

static void
case_init (Case * c, GstVideoFormat format, guint32 seed, const gchar * view)
{
  GstVideoInfo info;

  sd_check_rig_setup (&c->rig, CASE_W, CASE_H);
  gst_video_info_set_format (&info, format, CASE_W, CASE_H);
  GST_VIDEO_INFO_FPS_N (&info) = 30;
  c->format = format;
  c->caps = gst_video_info_to_caps (&info);
  c->in = sd_check_random_frame (&info, seed);
  rectify (c->rig.path, c->caps, view, FALSE, c->in, c->host);
}

static void
case_assert_output (const Case * c, GstBuffer * out, const gchar * what)
{
  sd_check_assert_same_frame (c->host[0], out, c->format, CASE_W, CASE_H,
      what);
  gst_buffer_unref (out);
}

static void
case_clear (Case * c)
{
  for (guint i = 0; i < FRAMES; i++)
    gst_buffer_unref (c->host[i]);
  gst_buffer_unref (c->in);
  gst_caps_unref (c->caps);
  sd_check_rig_clear (&c->rig);
}

/* Frames that move from system memory to CUDA memory mid-stream, and
 * back: every output has the host remap's bytes, those in CUDA memory
 * remapped on the GPU. */
GST_START_TEST (test_cuda_renegotiation)
{
  Case c;
  Run run;

  case_init (&c, GST_VIDEO_FORMAT_NV12, 7, "left");
  run_init (&run, c.rig.path, c.caps, "left", "video/x-raw");
  run_play (&run);
  for (guint i = 0; i < 9; i++) {
    if (i == 3 || i == 6)
      run_set_memory (&run, i == 3 ? SD_CHECK_CUDA_CAPS : "video/x-raw");
    run_push (&run, c.in);
    case_assert_output (&c, run_pull (&run),
        "NV12, memory changed mid-stream");
    fail_unless_equals_int (g_atomic_int_get (&run.on_gpu),
        CLAMP ((gint) i - 2, 0, 3));
  }
  run_clear (&run);
  case_clear (&c);
}

GST_END_TEST;

/* cudaupload and stereorectify in CUDA contexts of their own (an
 * application's doing, or two GPUs): the element cannot read the frames
 * on the device, so it remaps them through the host, with the same
 * bytes. */
GST_START_TEST (test_cuda_other_context)
{
  GstCudaContext *theirs, *ours;
  GstContext *context;
  Case c;
  Run run;

  case_init (&c, GST_VIDEO_FORMAT_I420, 8, "right");
  fail_unless (gst_cuda_load_library ());
  theirs = gst_cuda_context_new (0);
  ours = gst_cuda_context_new (0);
  fail_unless (theirs && ours);
  run_init (&run, c.rig.path, c.caps, "right", SD_CHECK_CUDA_CAPS);
  context = gst_context_new_cuda_context (theirs);
  gst_element_set_context (run.up, context);
  gst_context_unref (context);
  context = gst_context_new_cuda_context (ours);
  gst_element_set_context (run.r, context);
  gst_context_unref (context);
  run_play (&run);
  for (guint i = 0; i < FRAMES; i++) {
    run_push (&run, c.in);
    case_assert_output (&c, run_pull (&run), "I420 of another context");
  }
  fail_unless_equals_int (g_atomic_int_get (&run.on_gpu), 0);
  run_clear (&run);
  gst_object_unref (theirs);
  gst_object_unref (ours);
  case_clear (&c);
}

GST_END_TEST;

static Suite *
rectify_cuda_suite (void)
{
  Suite *s = suite_create ("stereorectify-cuda");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cuda_formats);
  tcase_add_test (tc, test_cuda_packed);
  tcase_add_test (tc, test_cuda_renegotiation);
  tcase_add_test (tc, test_cuda_other_context);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  if (!sd_check_cudaupload_available () || !sd_check_cuda_ready ())
    return 77;
  return gst_check_run_suite (rectify_cuda_suite (), "stereorectify-cuda",
      __FILE__);
}
