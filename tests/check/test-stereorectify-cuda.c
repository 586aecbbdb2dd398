/* stereorectify on frames in CUDA memory (cudaupload in front of it,
 * cudadownload behind): every format both it and cudaupload take, and
 * both views of side-by-side and top-bottom frames, come out with the very
 * bytes of the host remap, remapped on the GPU (each output buffer is CUDA
 * memory written through a device mapping, so the element used the
 * context cudaupload shares).  Skips (77) without cudaupload (nvcodec) or
 * a CUDA device. */
#include "sd-check.h"

#include <gst/app/app.h>
#define GST_USE_UNSTABLE_API
#include <gst/cuda/gstcudamemory.h>

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

/* in (caps) FRAMES times through stereorectify with calibration and view,
 * in system memory or (cuda) between cudaupload and cudadownload; the
 * outputs in out, the count of those written on the GPU returned. */
static gint
rectify (const gchar * calibration, GstCaps * caps, const gchar * view,
    gboolean cuda, GstBuffer * in, GstBuffer * out[FRAMES])
{
  gchar *desc = g_strdup_printf ("appsrc name=in format=time ! %s "
      "stereorectify name=r calibration=\"%s\" view=%s ! %s "
      "appsink name=out sync=false", cuda ? "cudaupload ! "
      SD_CHECK_CUDA_CAPS " !" : "", calibration, view,
      cuda ? "cudadownload ! video/x-raw !" : "");
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *src, *sink, *r;
  GstPad *pad;
  gint on_gpu = 0;

  fail_unless (pipeline != NULL, "%s", error ? error->message : "");
  g_free (desc);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "in");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  r = gst_bin_get_by_name (GST_BIN (pipeline), "r");
  pad = gst_element_get_static_pad (r, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_written_on_gpu,
      &on_gpu, NULL);
  gst_object_unref (pad);
  g_object_set (src, "caps", caps, NULL);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (guint i = 0; i < FRAMES; i++) {
    GstBuffer *frame = gst_buffer_copy (in);

    GST_BUFFER_PTS (frame) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
            frame), GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  for (guint i = 0; i < FRAMES; i++) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        10 * GST_SECOND);

    fail_unless (sample != NULL, "no output %u (%s)", i,
        cuda ? "CUDA memory" : "system memory");
    out[i] = gst_buffer_ref (gst_sample_get_buffer (sample));
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (r);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
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

static Suite *
rectify_cuda_suite (void)
{
  Suite *s = suite_create ("stereorectify-cuda");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cuda_formats);
  tcase_add_test (tc, test_cuda_packed);
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
