/**
 * SECTION:element-stereodepth
 * @title: stereodepth
 *
 * Computes the disparity of a stereo pair: a left and a right video stream
 * in, one 16-bit disparity (or depth) stream out.
 *
 * The output is `video/x-raw, format=GRAY16_LE` with one view's size and the
 * left input's framerate and pixel-aspect-ratio.  Each value is round(16 *
 * d), d being the disparity in pixels of the left image (left x matches
 * right x - d): four fractional bits, as OpenCV and libSGM use.  0 means
 * invalid (occluded, failed the left-right check, or not unique).  With
 * #GstStereoDepth:output=depth each value is the depth in millimetres (0
 * invalid, 65535 that far or farther).
 *
 * The views must be rectified, or #GstStereoDepth:calibration names the
 * rig's calibration (OpenCV's stereoCalibrate + stereoRectify output in YAML
 * or XML, or a ROS camera_info pair with #GstStereoDepth:calibration-right):
 * both views are then undistorted and rectified first, and output=depth
 * takes its focal length and baseline from it.  #GstStereoDepth:statistics
 * posts a "stereodepth-statistics" element message per output frame.
 *
 * The request pad src_confidence carries how certain each disparity is:
 * GRAY8 of the output's size, one frame per output frame with its
 * timestamps.  0 means no match (the output is invalid there, or
 * #GstStereoDepth:fill-holes filled it), 1 to 255 a match, 255 the most
 * certain.  It is computed only while the pad exists.  In a launch line
 * each source pad wants its own queue: the element pushes both from one
 * thread.
 *
 * Frames are paired by running time: a left and a right frame closer than
 * half a frame duration (or #GstStereoDepth:max-time-difference) form a pair;
 * an older frame without a partner is dropped and counted in
 * #GstStereoDepth:frames-dropped.  The output buffer carries the left
 * frame's timestamps, duration and offsets.  With live sources the element
 * reports one frame of latency plus the time a pair takes, and a pair still
 * incomplete after it is dropped; a pair that could no longer be computed
 * by its deadline is skipped, counted in #GstStereoDepth:pairs-late
 * (gststereodepthpace.h), as it is without live sources into a sink that
 * syncs to the clock (files played to a screen; its QoS events say so).
 * EOS is sent once either input is at EOS and no
 * pair can be formed.
 *
 * An input that stops delivering (no frames, no EOS) while the other goes on
 * would stall the pipeline.  After #GstStereoDepth:timeout (by default four
 * frame durations when live; when not live the element waits, as
 * aggregators do, unless the property is set; at most a second for an input
 * that is not linked, which can never deliver) the element posts a warning
 * naming the silent input and drops the other input's frames, counted in
 * #GstStereoDepth:frames-dropped, so that its upstream keeps flowing.  When
 * the silent input delivers again an info message says so and pairing
 * resumes.
 *
 * With #GstStereoDepth:pairs-in-flight at 2 (what auto picks on the CUDA
 * backend when upstream is not live) the GPU computes one pair while the
 * element copies the next one in and pushes the one before: more pairs a
 * second, and a pair's output waits for the next pair, EOS, a drain query
 * or another serialized event (one frame more latency, reported to live
 * pipelines).  Flushing discards the pair in flight.
 *
 * Only luma is used.  RGB inputs become luma with the integer full-range
 * BT.601 rule (77 R + 150 G + 29 B + 128) >> 8, GRAY16 keeps its high byte,
 * YUV inputs use their Y plane.  Both inputs must have the same width and
 * height.
 *
 * A stereo camera that sends both views in one frame links to sink_left
 * alone: its caps' multiview-mode (side-by-side or top-bottom, with
 * multiview-flags saying whether the right view comes first), or
 * #GstStereoDepth:input-layout where the caps do not say it, splits each
 * frame into two views without a copy; the output has one view's size.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 stereodepth name=sd num-disparities=64 ! depthcolormap ! \
 *     videoconvert ! pngenc ! filesink location=disparity-color.png \
 *   filesrc location=left.png ! pngdec ! imagefreeze num-buffers=1 ! sd.sink_left \
 *   filesrc location=right.png ! pngdec ! imagefreeze num-buffers=1 ! sd.sink_right
 * ]| A disparity picture of two image files.
 * |[
 * gst-launch-1.0 stereodepth name=sd ! videoconvert ! \
 *     video/x-raw,format=GRAY16_BE ! pngenc ! multifilesink location=depth-%05d.png \
 *   v4l2src device=/dev/video0 ! videoconvert ! video/x-raw,format=GRAY8,width=640,height=480 ! queue ! sd.sink_left \
 *   v4l2src device=/dev/video2 ! videoconvert ! video/x-raw,format=GRAY8,width=640,height=480 ! queue ! sd.sink_right
 * ]| Records the disparity of two cameras losslessly as 16-bit PNG files.
 * |[
 * gst-launch-1.0 stereodepth name=sd ! depthcolormap ! videoconvert ! autovideosink \
 *   v4l2src device=/dev/video0 ! videoconvert ! video/x-raw,format=GRAY8,width=640,height=480 ! queue ! sd.sink_left \
 *   v4l2src device=/dev/video2 ! videoconvert ! video/x-raw,format=GRAY8,width=640,height=480 ! queue ! sd.sink_right
 * ]| Live colour preview of two cameras.
 * |[
 * gst-launch-1.0 stereodepth name=sd ! queue ! depthcolormap ! videoconvert ! autovideosink \
 *   sd.src_confidence ! queue ! videoconvert ! autovideosink \
 *   v4l2src device=/dev/video0 ! videoconvert ! video/x-raw,format=GRAY8,width=640,height=480 ! queue ! sd.sink_left \
 *   v4l2src device=/dev/video2 ! videoconvert ! video/x-raw,format=GRAY8,width=640,height=480 ! queue ! sd.sink_right
 * ]| The same with the confidence in a second window (bright = certain).
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! video/x-raw,format=GRAY8,width=2560,height=720 ! \
 *     stereodepth input-layout=side-by-side num-disparities=128 ! depthcolormap ! \
 *     videoconvert ! autovideosink
 * ]| Live colour preview of a side-by-side stereo camera.
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! video/x-raw,format=GRAY8,width=2560,height=720 ! \
 *     stereodepth input-layout=side-by-side calibration=rig.yaml output=depth ! \
 *     depthcolormap input=depth ! videoconvert ! autovideosink
 * ]| Depth in millimetres from a side-by-side camera that is not rectified,
 * coloured near = warm.
 */
#include "gststereodepth.h"
#include "gststereodepthcalib.h"
#include "gststereodepthcuda.h"
#include "gststereodepthstats.h"

#include <stddef.h>
#include <string.h>

#include "gstsdenums.h"

GST_DEBUG_CATEGORY (gst_stereo_depth_debug);
#define GST_CAT_DEFAULT gst_stereo_depth_debug

/* The formats the sink pads take, in system or CUDA memory: plane 0 of
 * each holds the luma (a Y plane, packed YUV or RGB), which is all the
 * engine reads (plane_formats below says how).  The CUDA-memory list is
 * the same, since the engine reads any of them on the GPU; which arrive
 * there depends on what GStreamer's CUDA allocator holds. */
#define SINK_FORMATS "{ GRAY8, GRAY16_LE, I420, YV12, NV12, NV21, NV16, " \
    "NV61, NV24, Y41B, Y42B, Y444, A420, P010_10LE, P012_LE, P016_LE, " \
    "I420_10LE, I420_12LE, I422_10LE, I422_12LE, Y444_10LE, Y444_12LE, " \
    "Y444_16LE, YUY2, YVYU, UYVY, AYUV, VUYA, RGB, BGR, RGBx, BGRx, xRGB, " \
    "xBGR, RGBA, BGRA, ARGB, ABGR }"

/* Frames in CUDA memory (decoders, cudaupload) are read in place on the
 * GPU (gststereodepthcuda.h); listed first, so that an upstream that can
 * give either gives those. */
#ifdef HAVE_GST_CUDA
#define SINK_CUDA_CAPS GST_VIDEO_CAPS_MAKE_WITH_FEATURES \
    ("memory:CUDAMemory", SINK_FORMATS) "; "
#else
#define SINK_CUDA_CAPS ""
#endif

/* sink_left also takes both views in one frame (gststereodepthviews.h):
 * its last structure says so to gst-inspect-1.0. */
static GstStaticPadTemplate sink_left_template =
GST_STATIC_PAD_TEMPLATE ("sink_left", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (SINK_CUDA_CAPS GST_VIDEO_CAPS_MAKE (SINK_FORMATS) "; "
        GST_VIDEO_CAPS_MAKE (SINK_FORMATS)
        ", multiview-mode = (string) { side-by-side, top-bottom }"));

static GstStaticPadTemplate sink_right_template =
GST_STATIC_PAD_TEMPLATE ("sink_right", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (SINK_CUDA_CAPS GST_VIDEO_CAPS_MAKE (SINK_FORMATS)));

static GstStaticPadTemplate src_template =
GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY16_LE")));

/* Which SdPlane layout views plane 0 of each of SINK_FORMATS.  Planar and
 * semi-planar YUV give their Y plane: GRAY8, or 16-bit samples whose top
 * bits (P010, P016: GRAY16_LE) or low 10 or 12 bits hold the value. */
static const struct
{
  GstVideoFormat video;
  SdPixelFormat sd;
} plane_formats[] = {
  {GST_VIDEO_FORMAT_GRAY8, SD_PIXEL_GRAY8},
  {GST_VIDEO_FORMAT_GRAY16_LE, SD_PIXEL_GRAY16_LE},
  {GST_VIDEO_FORMAT_I420, SD_PIXEL_GRAY8},
  {GST_VIDEO_FORMAT_YV12, SD_PIXEL_GRAY8},
  {GST_VIDEO_FORMAT_NV12, SD_PIXEL_GRAY8},
  {GST_VIDEO_FORMAT_NV21, SD_PIXEL_GRAY8},
  {GST_VIDEO_FORMAT_NV16, SD_PIXEL_GRAY8},
  {GST_VIDEO_FORMAT_NV61, SD_PIXEL_GRAY8},
  {GST_VIDEO_FORMAT_NV24, SD_PIXEL_GRAY8},
  {GST_VIDEO_FORMAT_Y41B, SD_PIXEL_GRAY8},
  {GST_VIDEO_FORMAT_Y42B, SD_PIXEL_GRAY8},
  {GST_VIDEO_FORMAT_Y444, SD_PIXEL_GRAY8},
  {GST_VIDEO_FORMAT_A420, SD_PIXEL_GRAY8},
  {GST_VIDEO_FORMAT_P010_10LE, SD_PIXEL_GRAY16_LE},
  {GST_VIDEO_FORMAT_P012_LE, SD_PIXEL_GRAY16_LE},
  {GST_VIDEO_FORMAT_P016_LE, SD_PIXEL_GRAY16_LE},
  {GST_VIDEO_FORMAT_Y444_16LE, SD_PIXEL_GRAY16_LE},
  {GST_VIDEO_FORMAT_I420_10LE, SD_PIXEL_GRAY10_LE},
  {GST_VIDEO_FORMAT_I422_10LE, SD_PIXEL_GRAY10_LE},
  {GST_VIDEO_FORMAT_Y444_10LE, SD_PIXEL_GRAY10_LE},
  {GST_VIDEO_FORMAT_I420_12LE, SD_PIXEL_GRAY12_LE},
  {GST_VIDEO_FORMAT_I422_12LE, SD_PIXEL_GRAY12_LE},
  {GST_VIDEO_FORMAT_Y444_12LE, SD_PIXEL_GRAY12_LE},
  {GST_VIDEO_FORMAT_YUY2, SD_PIXEL_YUYV},
  {GST_VIDEO_FORMAT_YVYU, SD_PIXEL_YUYV},
  {GST_VIDEO_FORMAT_UYVY, SD_PIXEL_UYVY},
  {GST_VIDEO_FORMAT_AYUV, SD_PIXEL_AYUV},
  {GST_VIDEO_FORMAT_VUYA, SD_PIXEL_VUYA},
  {GST_VIDEO_FORMAT_RGB, SD_PIXEL_RGB},
  {GST_VIDEO_FORMAT_BGR, SD_PIXEL_BGR},
  {GST_VIDEO_FORMAT_RGBx, SD_PIXEL_RGBX},
  {GST_VIDEO_FORMAT_RGBA, SD_PIXEL_RGBX},
  {GST_VIDEO_FORMAT_BGRx, SD_PIXEL_BGRX},
  {GST_VIDEO_FORMAT_BGRA, SD_PIXEL_BGRX},
  {GST_VIDEO_FORMAT_xRGB, SD_PIXEL_XRGB},
  {GST_VIDEO_FORMAT_ARGB, SD_PIXEL_XRGB},
  {GST_VIDEO_FORMAT_xBGR, SD_PIXEL_XBGR},
  {GST_VIDEO_FORMAT_ABGR, SD_PIXEL_XBGR},
};

/* The engine parameters are one property each, described by common/'s
 * sd_param_descs[] (name, blurb, range, default from sd_params_init());
 * sd_params_validate() has the final word (odd windows, p1 <= p2, ...). */
#define N_ENGINE_PARAMS sd_param_count

/* "census-window" -> "GstStereoDepthCensusWindow" */
static GType
param_enum_type (const SdParamDesc * d)
{
  GString *name = g_string_new ("GstStereoDepth");
  gboolean upper = TRUE;

  for (const gchar * c = d->name; *c; c++) {
    if (*c == '-') {
      upper = TRUE;
      continue;
    }
    g_string_append_c (name, upper ? g_ascii_toupper (*c) : *c);
    upper = FALSE;
  }
  /* registered once; the name is kept by the type system's own copy */
  GType type = gst_sd_enum_type (name->str, d->entries);
  g_string_free (name, TRUE);
  return type;
}

enum
{
  PROP_0,
  PROP_BACKEND,
  PROP_CUDA_DEVICE_ID,
  PROP_MAX_TIME_DIFFERENCE,
  PROP_TIMEOUT,
  PROP_PAIRS_IN_FLIGHT,
  PROP_INPUT_LAYOUT,
  PROP_CALIBRATION,
  PROP_CALIBRATION_RIGHT,
  PROP_STATISTICS,
  PROP_FRAMES_PROCESSED,
  PROP_FRAMES_DROPPED,
  PROP_PAIRS_LATE,
  PROP_MEAN_PROCESS_TIME,
  PROP_PARAM_FIRST,
};

#define DEFAULT_BACKEND GST_STEREO_DEPTH_BACKEND_AUTO
#define DEFAULT_CUDA_DEVICE_ID 0
#define DEFAULT_MAX_TIME_DIFFERENCE (-1)
#define DEFAULT_TIMEOUT (-1)
#define DEFAULT_PAIRS_IN_FLIGHT 0
#define DEFAULT_INPUT_LAYOUT GST_STEREO_DEPTH_INPUT_LAYOUT_AUTO

static const SdEnumEntry backend_entries[] = {
  {"auto", GST_STEREO_DEPTH_BACKEND_AUTO,
      "CUDA when a device is present, otherwise the CPU"},
  {"cpu", GST_STEREO_DEPTH_BACKEND_CPU,
      "CPU backend: threads and vectors where it has them, else the "
      "reference"},
  {"cuda", GST_STEREO_DEPTH_BACKEND_CUDA,
      "CUDA backend (an error without a device)"},
  {"reference", GST_STEREO_DEPTH_BACKEND_REFERENCE,
      "the plain CPU reference, the oracle of the tests (same output as cpu)"},
  {NULL, 0, NULL}
};

#define GST_TYPE_STEREO_DEPTH_BACKEND \
    gst_sd_enum_type ("GstStereoDepthBackend", backend_entries)

#define gst_stereo_depth_parent_class parent_class
G_DEFINE_TYPE (GstStereoDepth, gst_stereo_depth, GST_TYPE_AGGREGATOR);
GST_ELEMENT_REGISTER_DEFINE (stereodepth, "stereodepth", GST_RANK_NONE,
    GST_TYPE_STEREO_DEPTH);

static GParamSpec *
param_spec (const SdParamDesc * d, const SdParams * defaults)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;
  const guint8 *base = (const guint8 *) defaults;

  switch (d->kind) {
    case SD_PARAM_INT:
      return g_param_spec_int (d->name, d->name, d->blurb, (gint) d->min,
          (gint) d->max, *(const int *) (base + d->offset), flags);
    case SD_PARAM_FLOAT:
      return g_param_spec_float (d->name, d->name, d->blurb, (gfloat) d->min,
          (gfloat) d->max, *(const float *) (base + d->offset), flags);
    case SD_PARAM_BOOL:
      return g_param_spec_boolean (d->name, d->name, d->blurb,
          *(const bool *) (base + d->offset), flags);
    case SD_PARAM_ENUM:
      return g_param_spec_enum (d->name, d->name, d->blurb,
          param_enum_type (d), *(const int *) (base + d->offset), flags);
  }
  g_assert_not_reached ();
  return NULL;
}

/* Writes value into the field d describes. */
static void
param_from_value (SdParams * p, const SdParamDesc * d, const GValue * value)
{
  guint8 *base = (guint8 *) p;

  switch (d->kind) {
    case SD_PARAM_INT:
      *(int *) (base + d->offset) = g_value_get_int (value);
      break;
    case SD_PARAM_FLOAT:
      *(float *) (base + d->offset) = g_value_get_float (value);
      break;
    case SD_PARAM_BOOL:
      *(bool *) (base + d->offset) = g_value_get_boolean (value);
      break;
    case SD_PARAM_ENUM:
      /* SdParams stores its enums as C enums, which are int-sized here */
      *(int *) (base + d->offset) = g_value_get_enum (value);
      break;
  }
}

static void
param_to_value (const SdParams * p, const SdParamDesc * d, GValue * value)
{
  const guint8 *base = (const guint8 *) p;

  switch (d->kind) {
    case SD_PARAM_INT:
      g_value_set_int (value, *(const int *) (base + d->offset));
      break;
    case SD_PARAM_FLOAT:
      g_value_set_float (value, *(const float *) (base + d->offset));
      break;
    case SD_PARAM_BOOL:
      g_value_set_boolean (value, *(const bool *) (base + d->offset));
      break;
    case SD_PARAM_ENUM:
      g_value_set_enum (value, *(const int *) (base + d->offset));
      break;
  }
}

static void
gst_stereo_depth_set_param (GstStereoDepth * self, const SdParamDesc * d,
    const GValue * value)
{
  SdParams candidate;
  gchar msg[256];
  gboolean valid;

  GST_OBJECT_LOCK (self);
  candidate = self->params;
  param_from_value (&candidate, d, value);
  valid = sd_params_validate (&candidate, msg, sizeof (msg));
  if (valid) {
    self->params = candidate;
    self->params_changed = TRUE;
  }
  GST_OBJECT_UNLOCK (self);

  /* a g_warning, as GObject gives a value outside a property's range: a
   * debug-log line alone left users of gst-launch-1.0 with a setting
   * silently not taken (p1 before p2 when raising both) */
  if (!valid)
    g_warning ("%s: refusing the new %s: %s; the property keeps its value",
        GST_OBJECT_NAME (self), d->name, msg);
}

static void
gst_stereo_depth_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstStereoDepth *self = GST_STEREO_DEPTH (object);

  if (prop_id >= PROP_PARAM_FIRST
      && prop_id < PROP_PARAM_FIRST + N_ENGINE_PARAMS) {
    gst_stereo_depth_set_param (self,
        &sd_param_descs[prop_id - PROP_PARAM_FIRST], value);
    return;
  }

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BACKEND:
      self->backend = g_value_get_enum (value);
      break;
    case PROP_CUDA_DEVICE_ID:
      self->cuda_device_id = g_value_get_int (value);
      break;
    case PROP_MAX_TIME_DIFFERENCE:
      self->max_time_difference = g_value_get_int64 (value);
      break;
    case PROP_TIMEOUT:
      self->timeout = g_value_get_int64 (value);
      break;
    case PROP_PAIRS_IN_FLIGHT:
      self->pairs_in_flight = g_value_get_int (value);
      break;
    case PROP_INPUT_LAYOUT:
      self->input_layout = g_value_get_enum (value);
      break;
    case PROP_CALIBRATION:
      g_free (self->calibration);
      self->calibration = g_value_dup_string (value);
      break;
    case PROP_CALIBRATION_RIGHT:
      g_free (self->calibration_right);
      self->calibration_right = g_value_dup_string (value);
      break;
    case PROP_STATISTICS:
      self->statistics = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (prop_id == PROP_TIMEOUT)
    gst_stereo_depth_watch_wake (self);
}

static void
gst_stereo_depth_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstStereoDepth *self = GST_STEREO_DEPTH (object);

  GST_OBJECT_LOCK (self);
  if (prop_id >= PROP_PARAM_FIRST
      && prop_id < PROP_PARAM_FIRST + N_ENGINE_PARAMS) {
    param_to_value (&self->params,
        &sd_param_descs[prop_id - PROP_PARAM_FIRST], value);
    GST_OBJECT_UNLOCK (self);
    return;
  }

  switch (prop_id) {
    case PROP_BACKEND:
      g_value_set_enum (value, self->backend);
      break;
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, self->cuda_device_id);
      break;
    case PROP_MAX_TIME_DIFFERENCE:
      g_value_set_int64 (value, self->max_time_difference);
      break;
    case PROP_TIMEOUT:
      g_value_set_int64 (value, self->timeout);
      break;
    case PROP_PAIRS_IN_FLIGHT:
      g_value_set_int (value, self->pairs_in_flight);
      break;
    case PROP_INPUT_LAYOUT:
      g_value_set_enum (value, self->input_layout);
      break;
    case PROP_CALIBRATION:
      g_value_set_string (value, self->calibration);
      break;
    case PROP_CALIBRATION_RIGHT:
      g_value_set_string (value, self->calibration_right);
      break;
    case PROP_STATISTICS:
      g_value_set_boolean (value, self->statistics);
      break;
    case PROP_FRAMES_PROCESSED:
      g_value_set_uint64 (value, self->frames_processed);
      break;
    case PROP_FRAMES_DROPPED:
      g_value_set_uint64 (value, self->frames_dropped);
      break;
    case PROP_PAIRS_LATE:
      g_value_set_uint64 (value, self->pairs_late);
      break;
    case PROP_MEAN_PROCESS_TIME:
      g_value_set_uint64 (value, self->frames_processed ?
          self->process_time_total / self->frames_processed : 0);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Posts an engine failure as an element error whose message is the engine's
 * own sentence; the error domain tells applications what kind of failure it
 * was. */
static void
gst_stereo_depth_post_engine_error (GstStereoDepth * self, const gchar * what,
    const SdError * err)
{
  switch (err->status) {
    case SD_ERROR_NO_BACKEND:
    case SD_ERROR_NO_DEVICE:
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("%s", err->message),
          ("%s failed", what));
      break;
    case SD_ERROR_OUT_OF_MEMORY:
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("%s", err->message),
          ("%s failed", what));
      break;
    case SD_ERROR_INVALID_ARGUMENT:
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", err->message),
          ("%s failed", what));
      break;
    default:
      GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("%s", err->message),
          ("%s failed", what));
      break;
  }
}

/* Creates the engine on first use, so that it lives in the streaming thread
 * that also runs it, and hands it the properties changed since the last
 * pair. */
static gboolean
gst_stereo_depth_update_engine (GstStereoDepth * self)
{
  SdParams p;
  gboolean changed;
  GstStereoDepthBackend backend;
  gint device;
  SdError err = { 0 };

  GST_OBJECT_LOCK (self);
  p = self->params;
  p.confidence = gst_stereo_depth_confidence_wanted (self);
  changed = self->params_changed;
  self->params_changed = FALSE;
  backend = self->backend;
  device = self->cuda_device_id;
  GST_OBJECT_UNLOCK (self);
  gst_stereo_depth_calib_params (self, &p);

  if (!self->engine) {
    self->engine = sd_engine_new (sd_enum_to_nick (backend_entries, backend),
        self->engine_in_cuda_context ? SD_DEVICE_CURRENT_CONTEXT : device,
        &p, &err);
    if (!self->engine) {
      gst_stereo_depth_post_engine_error (self, "creating the engine", &err);
      return FALSE;
    }
    self->engine_backend = backend;
    self->engine_device = device;
    gst_stereo_depth_pace_new_engine (self);
    if (backend == GST_STEREO_DEPTH_BACKEND_AUTO)
      GST_INFO_OBJECT (self, "backend=auto chose the %s backend%s",
          sd_engine_backend_name (self->engine),
          g_str_equal (sd_engine_backend_name (self->engine), "cpu") ?
          " (no usable CUDA device)" : "");
    return TRUE;
  }

  if (changed && sd_engine_set_params (self->engine, &p, &err) != SD_OK) {
    gst_stereo_depth_post_engine_error (self, "changing parameters", &err);
    return FALSE;
  }
  return TRUE;
}

/* Plane 0 of frame, read as format. */
static SdPlane
gst_stereo_depth_plane_as (const GstVideoFrame * frame, SdPixelFormat format)
{
  SdPlane plane;

  plane.data = GST_VIDEO_FRAME_PLANE_DATA (frame, 0);
  plane.width = GST_VIDEO_FRAME_WIDTH (frame);
  plane.height = GST_VIDEO_FRAME_HEIGHT (frame);
  plane.stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
  plane.format = format;
  return plane;
}

/* An input frame's plane 0 in the layout plane_formats gives it. */
static gboolean
gst_stereo_depth_plane (const GstVideoFrame * frame, SdPlane * plane)
{
  GstVideoFormat format = GST_VIDEO_FRAME_FORMAT (frame);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (plane_formats); i++) {
    if (plane_formats[i].video == format) {
      *plane = gst_stereo_depth_plane_as (frame, plane_formats[i].sd);
      return TRUE;
    }
  }
  return FALSE;
}

/* Says what align-rows measured, once a measurement: an element INFO
 * message when the rows were moved (the rig's calibration is off by that
 * much), a log line when they were left alone. */
static void
gst_stereo_depth_note_rows (GstStereoDepth * self)
{
  const SdRowOffset rows = sd_engine_row_offset (self->engine);
  const gdouble degrees = sd_row_offset_degrees (&rows);

  if (!rows.measured || (rows.offset == self->noted_rows.offset
          && rows.slope == self->noted_rows.slope
          && rows.scale == self->noted_rows.scale
          && rows.patches == self->noted_rows.patches))
    return;
  self->noted_rows = rows;
  if (sd_engine_rows_moved (self->engine))
    GST_ELEMENT_INFO (self, STREAM, FORMAT,
        ("The right view's rows sit %+.2f rows from the left's in the "
            "middle, turned %+.3f degrees, scaled %+.2f %%: they are moved "
            "back (align-rows).", rows.offset, degrees, 100.0 * rows.scale),
        ("Measured from %d patches of the first pair; calibrating the "
            "cameras again would save the remap.", rows.patches));
  else
    GST_INFO_OBJECT (self, "the right view's rows sit %+.2f rows from the "
        "left's in the middle, turned %+.3f degrees, scaled %+.2f %% (%d "
        "patches): left alone, under a quarter of a row", rows.offset,
        degrees, 100.0 * rows.scale,
        rows.patches);
}

/* Tells the application when the engine starts cutting frames into bands
 * nobody asked for (they do not fit the GPU's memory whole): each frame
 * takes longer, and under hbp and tiled-bp the output differs from the
 * whole frame's near the band edges (sgm's bands are exact: sd-band.h). */
static void
gst_stereo_depth_note_bands (GstStereoDepth * self)
{
  const SdParams *params = sd_engine_get_params (self->engine);
  const gint rows = sd_engine_band_rows (self->engine);

  if (rows == self->engine_band_rows)
    return;
  self->engine_band_rows = rows;
  if (!rows || rows == params->band_rows)
    return;
  const gchar *memory = g_strcmp0 (sd_engine_backend_name (self->engine),
      "cuda") ? "the memory" : "the GPU's memory";
  if (params->algorithm == SD_ALGORITHM_SGM)
    GST_ELEMENT_WARNING (self, RESOURCE, NO_SPACE_LEFT,
        ("The frames do not fit %s whole: they are processed in bands of "
            "%d rows.", memory, rows),
        ("The output is the whole frame's (sgm carries its paths across "
            "the band edges), at a cost in time; max-device-memory bounds "
            "what the backend may hold."));
  else
    GST_ELEMENT_WARNING (self, RESOURCE, NO_SPACE_LEFT,
        ("The frames do not fit %s whole: they are processed in bands of "
            "%d rows.", memory, rows),
        ("The output differs from the whole frame's near the band edges. "
            "band-rows=%d gives the same output on every backend; "
            "max-device-memory bounds what the backend may hold.", rows));
}

/* Maps the pair and out, and starts the pair in the engine; the pair then
 * waits, with out mapped, to be collected.  Takes out. */
static GstFlowReturn
gst_stereo_depth_submit (GstStereoDepth * self, GstBuffer * left,
    GstBuffer * right, GstBuffer * out, GstClockTime running_time)
{
  GstStereoDepthPending *pending = &self->pending[self->n_pending];
  const gboolean packed = gst_stereo_depth_views_packed (&self->views);
  /* frames already on the GPU stay there (GstCudaMemory gives host
   * pointers by downloading) */
  const gboolean device = gst_stereo_depth_cuda_in_place (self, left)
      && (packed || gst_stereo_depth_cuda_in_place (self, right));
  const GstMapFlags flags = GST_MAP_READ |
      (device ? GST_STEREO_DEPTH_MAP_CUDA : 0);
  GstVideoFrame lf, rf;
  SdPlane lp, rp;
  SdError err = { 0 };
  SdStatus status;
  GstClockTime start, elapsed = 0;
  const SdParams *params;

  gst_buffer_copy_into (out, left, GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  if (!gst_video_frame_map (&pending->frame, &self->out_info, out,
          GST_MAP_WRITE)) {
    gst_buffer_unref (out);
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not write the output frame."), (NULL));
    return GST_FLOW_ERROR;
  }
  if (!gst_video_frame_map (&lf, &self->left_info, left, flags)) {
    gst_video_frame_unmap (&pending->frame);
    gst_buffer_unref (out);
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Could not read a left frame: it is smaller than its caps say."),
        (NULL));
    return GST_FLOW_ERROR;
  }
  if (!packed && !gst_video_frame_map (&rf, &self->right_info, right,
          flags)) {
    gst_video_frame_unmap (&lf);
    gst_video_frame_unmap (&pending->frame);
    gst_buffer_unref (out);
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Could not read a right frame: it is smaller than its caps say."),
        (NULL));
    return GST_FLOW_ERROR;
  }

  /* the pad templates only allow formats of plane_formats */
  if (gst_stereo_depth_plane (&lf, &lp) && (packed
          || gst_stereo_depth_plane (&rf, &rp))) {
    if (packed) {
      const SdPlane frame = lp;

      gst_stereo_depth_views_split (&self->views, &frame, &lp, &rp);
    }
    start = gst_util_get_timestamp ();
    status = (device ? sd_engine_submit_device : sd_engine_submit)
        (self->engine, &lp, &rp, &err);
    elapsed = gst_util_get_timestamp () - start;
  } else {
    status = sd_error_set (&err, SD_ERROR_INVALID_ARGUMENT,
        "the element has no plane layout for this video format");
  }
  /* the engine copied host frames; it reads device frames until collect */
  pending->n_inputs = 0;
  if (device && status == SD_OK) {
    pending->inputs[pending->n_inputs++] = lf;
    if (!packed)
      pending->inputs[pending->n_inputs++] = rf;
  } else {
    if (!packed)
      gst_video_frame_unmap (&rf);
    gst_video_frame_unmap (&lf);
  }

  if (status != SD_OK) {
    gst_video_frame_unmap (&pending->frame);
    gst_buffer_unref (out);
    gst_stereo_depth_post_engine_error (self, "processing a pair", &err);
    return GST_FLOW_ERROR;
  }
  gst_stereo_depth_note_bands (self);
  gst_stereo_depth_note_rows (self);
  pending->out = out;
  pending->running_time = running_time;
  pending->submit_time = elapsed;
  params = sd_engine_get_params (self->engine);
  pending->confidence = params->confidence;
  pending->output = params->output;
  pending->search_min = params->min_disparity;
  pending->search_max = params->min_disparity + sd_params_disparities (params,
      GST_VIDEO_INFO_WIDTH (&self->out_info)) - 1;
  self->n_pending++;
  return GST_FLOW_OK;
}

/* Unmaps the device frames a pair kept for the engine. */
static void
gst_stereo_depth_release_inputs (GstStereoDepthPending * pending)
{
  guint i;

  for (i = 0; i < pending->n_inputs; i++)
    gst_video_frame_unmap (&pending->inputs[i]);
  pending->n_inputs = 0;
}

/* Takes the oldest pair out of the engine and pushes its disparity, and
 * its confidence where it has one and src_confidence still exists. */
static GstFlowReturn
gst_stereo_depth_collect (GstStereoDepth * self)
{
  GstStereoDepthPending pending = self->pending[0];
  GstStereoDepthConfidenceOut conf;
  gboolean with_confidence;
  SdPlane op, cp;
  SdError err = { 0 };
  SdStatus status;
  GstClockTime start, elapsed;
  gboolean statistics;
  GstFlowReturn ret;

  self->n_pending--;
  memmove (&self->pending[0], &self->pending[1],
      self->n_pending * sizeof (self->pending[0]));

  /* the engine writes host-endian samples, which are the src caps'
   * GRAY16_LE on little-endian hosts (x86-64, ARM64) */
  op = gst_stereo_depth_plane_as (&pending.frame, SD_PIXEL_GRAY16);
  with_confidence = pending.confidence
      && gst_stereo_depth_confidence_begin (self, &pending.frame, &conf);
  if (with_confidence)
    cp = gst_stereo_depth_plane_as (&conf.frame, SD_PIXEL_GRAY8);
  start = gst_util_get_timestamp ();
  status = sd_engine_collect (self->engine, &op,
      with_confidence ? &cp : NULL, &err);
  gst_stereo_depth_release_inputs (&pending);
  elapsed = gst_util_get_timestamp () - start + pending.submit_time;
  GST_OBJECT_LOCK (self);
  statistics = self->statistics;
  GST_OBJECT_UNLOCK (self);
  if (status == SD_OK && statistics)
    gst_stereo_depth_stats_post (self, &op, &pending, elapsed);
  gst_video_frame_unmap (&pending.frame);
  if (status != SD_OK) {
    if (with_confidence)
      gst_stereo_depth_confidence_finish (self, &conf, GST_FLOW_ERROR);
    gst_buffer_unref (pending.out);
    gst_stereo_depth_post_engine_error (self, "processing a pair", &err);
    return GST_FLOW_ERROR;
  }

  GST_OBJECT_LOCK (self);
  self->frames_processed++;
  self->process_time_total += elapsed;
  GST_OBJECT_UNLOCK (self);
  gst_stereo_depth_pace_note (self, elapsed);
  GST_LOG_OBJECT (self, "pair %" GST_TIME_FORMAT " processed, %"
      GST_TIME_FORMAT " in the engine", GST_TIME_ARGS (GST_BUFFER_PTS
          (pending.out)), GST_TIME_ARGS (elapsed));
  ret = gst_aggregator_finish_buffer (GST_AGGREGATOR (self), pending.out);
  if (with_confidence)
    ret = gst_stereo_depth_confidence_finish (self, &conf, ret);
  return ret;
}

/* Collects and pushes every pair in the engine, oldest first. */
static GstFlowReturn
gst_stereo_depth_drain (GstStereoDepth * self)
{
  GstFlowReturn ret = GST_FLOW_OK;

  gst_stereo_depth_cuda_enter (self);
  while (self->n_pending && ret == GST_FLOW_OK)
    ret = gst_stereo_depth_collect (self);
  gst_stereo_depth_cuda_leave (self);
  return ret;
}

/* Drops the pairs in the engine without pushing them (flush, stop). */
static void
gst_stereo_depth_discard (GstStereoDepth * self)
{
  guint i;

  gst_stereo_depth_cuda_enter (self);
  if (self->engine)
    sd_engine_discard (self->engine);
  gst_stereo_depth_cuda_leave (self);
  for (i = 0; i < self->n_pending; i++) {
    gst_stereo_depth_release_inputs (&self->pending[i]);
    gst_video_frame_unmap (&self->pending[i].frame);
    gst_buffer_unref (self->pending[i].out);
  }
  if (self->n_pending)
    GST_DEBUG_OBJECT (self, "discarded %u pair(s) in flight",
        self->n_pending);
  self->n_pending = 0;
}

/* How many pairs the engine may hold when aggregate() returns, plus one:
 * pairs-in-flight, or for auto two where that overlaps work (an
 * asynchronous backend) and no one waits on the clock for the frame of
 * latency it adds (upstream is not live). */
static guint
gst_stereo_depth_max_in_flight (GstStereoDepth * self)
{
  gint n;

  GST_OBJECT_LOCK (self);
  n = self->pairs_in_flight;
  GST_OBJECT_UNLOCK (self);
  if (n > 0)
    return n;
  return sd_engine_is_async (self->engine)
      && !GST_CLOCK_TIME_IS_VALID (gst_aggregator_get_latency (GST_AGGREGATOR
          (self))) ? 2 : 1;
}

/* Whether the engine is to run in the GstCudaContext: the input carries
 * CUDA memory and the backend may be CUDA. */
static gboolean
gst_stereo_depth_wants_cuda_context (GstStereoDepth * self)
{
  gboolean wants;

  GST_OBJECT_LOCK (self);
  wants = self->cuda_input && self->backend != GST_STEREO_DEPTH_BACKEND_CPU
      && self->backend != GST_STEREO_DEPTH_BACKEND_REFERENCE;
  GST_OBJECT_UNLOCK (self);
  return wants;
}

static gboolean
gst_stereo_depth_engine_outdated (GstStereoDepth * self)
{
  gboolean outdated;

  GST_OBJECT_LOCK (self);
  outdated = self->backend != self->engine_backend
      || self->cuda_device_id != self->engine_device;
  GST_OBJECT_UNLOCK (self);
  return outdated || self->engine_in_cuda_context !=
      gst_stereo_depth_wants_cuda_context (self);
}

/* Frees the engine in the context it was made in. */
static void
gst_stereo_depth_free_engine (GstStereoDepth * self)
{
  gst_stereo_depth_cuda_enter (self);
  g_clear_pointer (&self->engine, sd_engine_free);
  gst_stereo_depth_cuda_leave (self);
  self->engine_in_cuda_context = FALSE;
  self->engine_band_rows = 0;
  memset (&self->noted_rows, 0, sizeof (self->noted_rows));
}

static GstFlowReturn gst_stereo_depth_run_pair (GstStereoDepth * self,
    GstBuffer * left, GstBuffer * right, GstClockTime running_time);

static GstFlowReturn
gst_stereo_depth_process_pair (GstStereoDepth * self, GstBuffer * left,
    GstBuffer * right, GstClockTime running_time)
{
  const gboolean packed = gst_stereo_depth_views_packed (&self->views);
  GstFlowReturn ret;

  if (GST_VIDEO_INFO_FORMAT (&self->left_info) == GST_VIDEO_FORMAT_UNKNOWN
      || (!packed && GST_VIDEO_INFO_FORMAT (&self->right_info) ==
          GST_VIDEO_FORMAT_UNKNOWN)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("A frame arrived before the caps of its input (%s); upstream must "
            "send caps first.", GST_VIDEO_INFO_FORMAT (&self->left_info) ==
            GST_VIDEO_FORMAT_UNKNOWN ? "sink_left" : "sink_right"), (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (!packed && (GST_VIDEO_INFO_WIDTH (&self->left_info) !=
          GST_VIDEO_INFO_WIDTH (&self->right_info)
          || GST_VIDEO_INFO_HEIGHT (&self->left_info) !=
          GST_VIDEO_INFO_HEIGHT (&self->right_info))) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The left input is %dx%d but the right input is %dx%d; both must "
            "have the same width and height.",
            GST_VIDEO_INFO_WIDTH (&self->left_info),
            GST_VIDEO_INFO_HEIGHT (&self->left_info),
            GST_VIDEO_INFO_WIDTH (&self->right_info),
            GST_VIDEO_INFO_HEIGHT (&self->right_info)), (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }

  /* a backend or device chosen while playing, or input that moved to CUDA
   * memory: the pairs in flight finish on the engine that took them, the
   * next one starts on the new one */
  if (self->engine && gst_stereo_depth_engine_outdated (self)) {
    ret = gst_stereo_depth_drain (self);
    if (ret != GST_FLOW_OK)
      return ret;
    gst_stereo_depth_free_engine (self);
    self->engine_rect_id = 0;
  }
  if (!self->engine)
    self->engine_in_cuda_context = gst_stereo_depth_wants_cuda_context (self);
  gst_stereo_depth_cuda_enter (self);
  ret = gst_stereo_depth_run_pair (self, left, right, running_time);
  gst_stereo_depth_cuda_leave (self);
  return ret;
}

/* The rest of process_pair, with the engine's context current. */
static GstFlowReturn
gst_stereo_depth_run_pair (GstStereoDepth * self, GstBuffer * left,
    GstBuffer * right, GstClockTime running_time)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstBuffer *out;
  GstFlowReturn ret;

  if (!gst_stereo_depth_calib_prepare (self,
          GST_VIDEO_INFO_WIDTH (&self->out_info),
          GST_VIDEO_INFO_HEIGHT (&self->out_info))
      || !gst_stereo_depth_update_engine (self)
      || !gst_stereo_depth_calib_apply (self))
    return GST_FLOW_ERROR;

  ret = gst_buffer_pool_acquire_buffer (self->pool, &out, NULL);
  if (ret != GST_FLOW_OK)
    return ret;
  gst_aggregator_selected_samples (agg, GST_BUFFER_PTS (left),
      GST_BUFFER_DTS (left), GST_BUFFER_DURATION (left), NULL);
  ret = gst_stereo_depth_submit (self, left, right, out, running_time);

  /* the pair before this one is pushed while the engine works on this one */
  while (ret == GST_FLOW_OK
      && self->n_pending >= gst_stereo_depth_max_in_flight (self))
    ret = gst_stereo_depth_collect (self);
  return ret;
}

static GstClockTime
gst_stereo_depth_running_time (GstAggregatorPad * pad, GstBuffer * buf)
{
  GstClockTime t;

  if (!GST_BUFFER_PTS_IS_VALID (buf))
    return GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK (pad);
  /* a pad whose segment has not been stored yet (or was reset by a flush)
   * gives no running time rather than a critical */
  t = pad->segment.format == GST_FORMAT_TIME ?
      gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buf)) : GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (pad);
  return t;
}

/* A frame with a timestamp outside its pad's segment: one the segment
 * leaves out, such as a frame of the old position still queued when a
 * flushing seek's new segment arrives.  It has no running time, but unlike
 * a frame without a timestamp it must not pair in arrival order. */
static gboolean
gst_stereo_depth_outside_segment (GstAggregatorPad * pad, GstBuffer * buf)
{
  gboolean timed;

  GST_OBJECT_LOCK (pad);
  timed = pad->segment.format == GST_FORMAT_TIME;
  GST_OBJECT_UNLOCK (pad);
  return timed && GST_BUFFER_PTS_IS_VALID (buf)
      && !GST_CLOCK_TIME_IS_VALID (gst_stereo_depth_running_time (pad, buf));
}

static GstClockTime
gst_stereo_depth_frame_duration (GstBuffer * buf, const GstVideoInfo * info)
{
  if (GST_BUFFER_DURATION_IS_VALID (buf))
    return GST_BUFFER_DURATION (buf);
  if (GST_VIDEO_INFO_FPS_N (info) > 0)
    return gst_util_uint64_scale_int (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (info), GST_VIDEO_INFO_FPS_N (info));
  return GST_CLOCK_TIME_NONE;
}

/* The largest running-time difference of a pair: the property when set,
 * else half the shorter frame duration of the two (so that a frame of a
 * slow input never pairs with the neighbour of its partner on a fast one),
 * else, for still images without a rate, any difference. */
static GstClockTime
gst_stereo_depth_tolerance (GstStereoDepth * self, GstBuffer * left,
    GstBuffer * right)
{
  GstClockTime dl, dr, d;
  gint64 max_diff;

  GST_OBJECT_LOCK (self);
  max_diff = self->max_time_difference;
  GST_OBJECT_UNLOCK (self);
  if (max_diff >= 0)
    return max_diff;

  dl = gst_stereo_depth_frame_duration (left, &self->left_info);
  dr = gst_stereo_depth_frame_duration (right, &self->right_info);
  d = MIN (dl, dr);             /* GST_CLOCK_TIME_NONE is the largest value */
  return GST_CLOCK_TIME_IS_VALID (d) ? d / 2 : GST_CLOCK_TIME_NONE;
}

/* An input's GAP event, which GstAggregator queues as an empty buffer
 * flagged GAP: no frame, only the time for which none comes. */
static gboolean
gst_stereo_depth_is_gap (GstBuffer * buf)
{
  return GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP);
}

void
gst_stereo_depth_drop (GstStereoDepth * self, GstAggregatorPad * pad,
    const gchar * why)
{
  GstBuffer *buf = gst_aggregator_pad_pop_buffer (pad);

  if (!buf)
    return;
  /* frames-dropped counts frames; a gap held none */
  GST_OBJECT_LOCK (self);
  self->frames_dropped += !gst_stereo_depth_is_gap (buf);
  GST_OBJECT_UNLOCK (self);
  GST_INFO_OBJECT (pad, "dropping frame %" GST_TIME_FORMAT ": %s",
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)), why);
  gst_buffer_unref (buf);
}

/* Zeroes a GRAY frame (one plane): every value invalid, or no confidence. */
static void
gst_stereo_depth_clear_frame (GstVideoFrame * frame)
{
  memset (GST_VIDEO_FRAME_PLANE_DATA (frame, 0), 0,
      (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0) *
      GST_VIDEO_FRAME_HEIGHT (frame));
}

/* A pair with a gap on either side (or a packed frame that is a gap, then
 * left == right) has no depth.  After the pairs in flight, the output gets
 * a frame with the left's timestamps that is all invalid (0, and a
 * confidence of 0), flagged GAP: downstream keeps its pace, and can tell
 * the frame from a computed one.  A real frame beside the gap had no
 * partner, so it counts as dropped. */
static GstFlowReturn
gst_stereo_depth_push_gap (GstStereoDepth * self, GstBuffer * left,
    GstBuffer * right)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstStereoDepthConfidenceOut conf;
  gboolean with_confidence;
  GstVideoFrame frame;
  GstBuffer *out;
  GstFlowReturn ret;

  GST_OBJECT_LOCK (self);
  self->frames_dropped += !gst_stereo_depth_is_gap (left) +
      (right != left && !gst_stereo_depth_is_gap (right));
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "gap at %" GST_TIME_FORMAT,
      GST_TIME_ARGS (GST_BUFFER_PTS (left)));

  ret = gst_stereo_depth_drain (self);
  /* no output caps yet (a gap before the first caps): nothing to say it in */
  if (ret != GST_FLOW_OK || !self->pool)
    return ret;
  ret = gst_buffer_pool_acquire_buffer (self->pool, &out, NULL);
  if (ret != GST_FLOW_OK)
    return ret;
  gst_buffer_copy_into (out, left, GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  GST_BUFFER_FLAG_SET (out, GST_BUFFER_FLAG_GAP);
  if (!gst_video_frame_map (&frame, &self->out_info, out, GST_MAP_WRITE)) {
    gst_buffer_unref (out);
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not write the output frame."), (NULL));
    return GST_FLOW_ERROR;
  }
  gst_stereo_depth_clear_frame (&frame);
  GST_OBJECT_LOCK (self);
  with_confidence = gst_stereo_depth_confidence_wanted (self);
  GST_OBJECT_UNLOCK (self);
  with_confidence = with_confidence
      && gst_stereo_depth_confidence_begin (self, &frame, &conf);
  if (with_confidence)
    gst_stereo_depth_clear_frame (&conf.frame);
  gst_video_frame_unmap (&frame);

  gst_aggregator_selected_samples (agg, GST_BUFFER_PTS (out),
      GST_BUFFER_DTS (out), GST_BUFFER_DURATION (out), NULL);
  ret = gst_aggregator_finish_buffer (agg, out);
  if (with_confidence)
    ret = gst_stereo_depth_confidence_finish (self, &conf, ret);
  return ret;
}

/* One input has no frame: at EOS that ends the stream (what the other input
 * still holds can never be paired); on a live timeout the frame that waited
 * too long goes; otherwise wait for more data. */
static GstFlowReturn
gst_stereo_depth_incomplete (GstStereoDepth * self, gboolean timeout)
{
  GstAggregatorPad *pads[2] = { self->left_pad, self->right_pad };
  /* with both views in the left input, the right one is not an input */
  const guint n = gst_stereo_depth_views_packed (&self->views) ? 1 : 2;
  gboolean eos = FALSE;
  guint i;

  for (i = 0; i < n; i++)
    eos |= !gst_aggregator_pad_has_buffer (pads[i])
        && gst_aggregator_pad_is_eos (pads[i]);

  if (eos) {
    GstFlowReturn ret;

    for (i = 0; i < n; i++)
      while (gst_aggregator_pad_has_buffer (pads[i]))
        gst_stereo_depth_drop (self, pads[i], "the other input is at EOS");
    ret = gst_stereo_depth_drain (self);
    return ret == GST_FLOW_OK ? GST_FLOW_EOS : ret;
  }
  if (timeout) {
    /* a pair in flight is older than any waiting frame, so the deadline
     * that passed is its own; a waiting frame's comes next time */
    if (self->n_pending)
      return gst_stereo_depth_drain (self);
    for (i = 0; i < n; i++)
      gst_stereo_depth_drop (self, pads[i],
          "its partner did not arrive within the latency");
    return GST_FLOW_OK;
  }
  return GST_AGGREGATOR_FLOW_NEED_DATA;
}

/* Both views in one frame of the left input: every frame is a pair. */
static GstFlowReturn
gst_stereo_depth_aggregate_packed (GstStereoDepth * self, gboolean timeout)
{
  GstBuffer *frame = gst_aggregator_pad_peek_buffer (self->left_pad);
  GstClockTime t;
  GstFlowReturn ret;

  if (!frame)
    return gst_stereo_depth_incomplete (self, timeout);
  if (gst_stereo_depth_outside_segment (self->left_pad, frame)) {
    gst_buffer_unref (frame);
    gst_stereo_depth_drop (self, self->left_pad, "outside the segment");
    return GST_FLOW_OK;
  }
  t = gst_stereo_depth_running_time (self->left_pad, frame);
  if (gst_stereo_depth_is_gap (frame))
    ret = gst_stereo_depth_push_gap (self, frame, frame);
  else
    ret = gst_stereo_depth_pace_late (self, self->left_pad, frame, t) ?
        GST_FLOW_OK : gst_stereo_depth_process_pair (self, frame, frame, t);
  gst_buffer_unref (frame);
  gst_aggregator_pad_drop_buffer (self->left_pad);
  return ret;
}

static GstFlowReturn
gst_stereo_depth_aggregate_locked (GstStereoDepth * self, gboolean timeout)
{
  if (self->drain_flow != GST_FLOW_OK)
    return self->drain_flow;
  if (gst_stereo_depth_views_packed (&self->views))
    return gst_stereo_depth_aggregate_packed (self, timeout);

  for (;;) {
    GstBuffer *left = gst_aggregator_pad_peek_buffer (self->left_pad);
    GstBuffer *right = gst_aggregator_pad_peek_buffer (self->right_pad);
    GstAggregatorPad *stale;
    GstClockTime tl, tr, tolerance;
    GstFlowReturn ret;

    if (!left || !right) {
      gst_clear_buffer (&left);
      gst_clear_buffer (&right);
      return gst_stereo_depth_incomplete (self, timeout);
    }
    stale = gst_stereo_depth_outside_segment (self->left_pad, left) ?
        self->left_pad : gst_stereo_depth_outside_segment (self->right_pad,
        right) ? self->right_pad : NULL;
    if (stale) {
      gst_buffer_unref (left);
      gst_buffer_unref (right);
      gst_stereo_depth_drop (self, stale, "outside the segment");
      continue;
    }

    tl = gst_stereo_depth_running_time (self->left_pad, left);
    tr = gst_stereo_depth_running_time (self->right_pad, right);
    tolerance = gst_stereo_depth_tolerance (self, left, right);

    /* a frame without a timestamp pairs in arrival order */
    if (!GST_CLOCK_TIME_IS_VALID (tl) || !GST_CLOCK_TIME_IS_VALID (tr)
        || (tl > tr ? tl - tr : tr - tl) <= tolerance) {
      if (gst_stereo_depth_is_gap (left) || gst_stereo_depth_is_gap (right))
        ret = gst_stereo_depth_push_gap (self, left, right);
      else
        ret = gst_stereo_depth_pace_late (self, self->left_pad, left, tl) ?
            GST_FLOW_OK : gst_stereo_depth_process_pair (self, left, right,
            tl);
      gst_buffer_unref (left);
      gst_buffer_unref (right);
      gst_aggregator_pad_drop_buffer (self->left_pad);
      gst_aggregator_pad_drop_buffer (self->right_pad);
      return ret;
    }

    gst_buffer_unref (left);
    gst_buffer_unref (right);
    gst_stereo_depth_drop (self, tl < tr ? self->left_pad : self->right_pad,
        "no frame of the other input is close enough in time");
  }
}

static GstFlowReturn
gst_stereo_depth_aggregate (GstAggregator * agg, gboolean timeout)
{
  GstStereoDepth *self = GST_STEREO_DEPTH (agg);
  GstFlowReturn ret;

  g_mutex_lock (&self->aggregate_lock);
  ret = gst_stereo_depth_aggregate_locked (self, timeout);
  g_mutex_unlock (&self->aggregate_lock);
  return ret;
}

/* The earliest frame waiting or pair in flight: a live aggregate times out
 * one latency after it, which drops the frame when its partner has not
 * come, or pushes the pair when no next pair has pushed it. */
static GstClockTime
gst_stereo_depth_get_next_time (GstAggregator * agg)
{
  GstStereoDepth *self = GST_STEREO_DEPTH (agg);
  GstAggregatorPad *pads[2] = { self->left_pad, self->right_pad };
  GstClockTime next = GST_CLOCK_TIME_NONE;
  guint i;

  if (self->n_pending)
    next = self->pending[0].running_time;

  for (i = 0; i < 2; i++) {
    GstBuffer *buf = gst_aggregator_pad_peek_buffer (pads[i]);

    if (buf) {
      GstClockTime t = gst_stereo_depth_running_time (pads[i], buf);

      if (GST_CLOCK_TIME_IS_VALID (t))
        next = MIN (next, t);
      gst_buffer_unref (buf);
    }
  }
  return next;
}

static void
gst_stereo_depth_set_left_info (GstStereoDepth * self,
    const GstVideoInfo * info)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstClockTime frame = 0;

  gint in_flight;

  GST_OBJECT_LOCK (self);
  in_flight = self->pairs_in_flight;
  GST_OBJECT_UNLOCK (self);
  if (GST_VIDEO_INFO_FPS_N (info) > 0)
    frame = gst_util_uint64_scale_int (GST_SECOND, GST_VIDEO_INFO_FPS_D (info),
        GST_VIDEO_INFO_FPS_N (info));
  /* a live pair may arrive up to one frame apart, and with two pairs in
   * flight a pair's output waits for the next pair (auto keeps one pair in
   * flight with live sources) */
  gst_stereo_depth_watch_set_frame_duration (self, frame ? frame :
      GST_CLOCK_TIME_NONE);
  frame *= in_flight == 2 ? 2 : 1;
  gst_stereo_depth_pace_set_pairing (self, frame);

  self->left_info = *info;
  gst_pad_mark_reconfigure (agg->srcpad);
}

/* Ends the right input, which is unlinked while the left one carries both
 * views, so that the aggregator does not wait for its frames. */
static void
gst_stereo_depth_end_right (GstStereoDepth * self)
{
  GstPad *pad = GST_PAD (self->right_pad);
  GstSegment segment;
  gchar *stream_id;

  stream_id = g_strdup_printf ("%s/unused-sink_right", GST_OBJECT_NAME (self));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_pad_send_event (pad, gst_event_new_stream_start (stream_id));
  gst_pad_send_event (pad, gst_event_new_segment (&segment));
  gst_pad_send_event (pad, gst_event_new_eos ());
  g_free (stream_id);
  self->right_ended = TRUE;
}

/* Reads which views the left input's frames hold (its caps and
 * input-layout).  With both, the right input must be unlinked, and it is
 * ended. */
static gboolean
gst_stereo_depth_set_views (GstStereoDepth * self, const GstVideoInfo * info)
{
  GstStereoDepthInputLayout layout;
  gchar *why = NULL;
  gboolean packed;

  GST_OBJECT_LOCK (self);
  layout = self->input_layout;
  GST_OBJECT_UNLOCK (self);
  if (!gst_stereo_depth_views_from_info (layout, info, &self->views, &why)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", why), (NULL));
    g_free (why);
    return FALSE;
  }
  packed = gst_stereo_depth_views_packed (&self->views);
  if (packed && gst_pad_is_linked (GST_PAD (self->right_pad))) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("sink_left carries both views (%s) but sink_right is linked too; "
            "link only sink_left, or set input-layout=separate.",
            gst_video_multiview_mode_to_caps_string (self->views.packing)),
        (NULL));
    return FALSE;
  }
  if (!packed && self->right_ended) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("sink_left carried both views and now carries one, but sink_right "
            "has no stream to give the other."), (NULL));
    return FALSE;
  }
  GST_INFO_OBJECT (self, "%s", packed ? gst_video_multiview_mode_to_caps_string
      (self->views.packing) : "one view per input");
  gst_stereo_depth_watch_set_single_input (self, packed);
  if (packed && !self->right_ended)
    gst_stereo_depth_end_right (self);
  return TRUE;
}

/* Drains where aggregate() cannot return the flow (events and queries): a
 * failure is kept for the next aggregate() to return. */
static void
gst_stereo_depth_drain_before (GstStereoDepth * self)
{
  if (self->drain_flow == GST_FLOW_OK)
    self->drain_flow = gst_stereo_depth_drain (self);
}

static gboolean
gst_stereo_depth_sink_event (GstAggregator * agg, GstAggregatorPad * pad,
    GstEvent * event)
{
  GstStereoDepth *self = GST_STEREO_DEPTH (agg);

  /* The serialized events come through the streaming thread, in order with
   * the frames (flush-stop excepted): the outputs of the pairs before an
   * event go out before it (new caps or segment, EOS, gap, ...). */
  if (GST_EVENT_IS_SERIALIZED (event)
      && GST_EVENT_TYPE (event) != GST_EVENT_FLUSH_STOP)
    gst_stereo_depth_drain_before (self);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      GstVideoInfo info;

      gst_event_parse_caps (event, &caps);
      if (!gst_video_info_from_caps (&info, caps)) {
        GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
            ("%s received caps it cannot read: %" GST_PTR_FORMAT,
                GST_PAD_NAME (pad), caps), (NULL));
        gst_event_unref (event);
        return FALSE;
      }
      /* frames on the GPU: the engine moves into the context they live in
       * at the next pair */
      if (gst_stereo_depth_cuda_caps (caps)) {
        gint device_id;

        GST_OBJECT_LOCK (self);
        device_id = self->cuda_device_id;
        GST_OBJECT_UNLOCK (self);
        if (!gst_stereo_depth_cuda_ensure (self, device_id)) {
          gst_event_unref (event);
          return FALSE;
        }
        GST_OBJECT_LOCK (self);
        self->cuda_input = TRUE;
        GST_OBJECT_UNLOCK (self);
      }
      if (pad == self->left_pad) {
        if (!gst_stereo_depth_set_views (self, &info)) {
          gst_event_unref (event);
          return FALSE;
        }
        gst_stereo_depth_set_left_info (self, &info);
      } else {
        self->right_info = info;
      }
      /* the output caps are ours to set, not the input's to forward */
      gst_event_unref (event);
      return TRUE;
    }
    case GST_EVENT_SEGMENT:
      if (pad == self->left_pad) {
        const GstSegment *segment;

        /* output buffers carry the left timestamps, so they live in the
         * left segment */
        gst_event_parse_segment (event, &segment);
        gst_aggregator_update_segment (agg, segment);
      }
      break;
    default:
      break;
  }
  return GST_AGGREGATOR_CLASS (parent_class)->sink_event (agg, pad, event);
}

/* A drain query asks for every output of what came before it; a context
 * query may ask for the GstCudaContext. */
static gboolean
gst_stereo_depth_sink_query (GstAggregator * agg, GstAggregatorPad * pad,
    GstQuery * query)
{
  if (gst_stereo_depth_cuda_query (GST_STEREO_DEPTH (agg), query))
    return TRUE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_DRAIN)
    gst_stereo_depth_drain_before (GST_STEREO_DEPTH (agg));
  return GST_AGGREGATOR_CLASS (parent_class)->sink_query (agg, pad, query);
}

/* Frames may come with any strides and plane offsets: GstVideoMeta says
 * them and gst_video_frame_map() follows it.  Saying so lets cameras and
 * decoders hand over their padded buffers instead of copying each into
 * the default layout. */
static gboolean
gst_stereo_depth_propose_allocation (G_GNUC_UNUSED GstAggregator * agg,
    G_GNUC_UNUSED GstAggregatorPad * pad,
    G_GNUC_UNUSED GstQuery * decide_query, GstQuery * query)
{
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
}

/* Whether the stream can seek in time, and over what range.  GstAggregator
 * says no to every seeking query, yet it sends a seek to each input and
 * the pairs follow a flushing seek: so the answer is the linked inputs'
 * together (sink_left alone for a packed stream), seekable where each of
 * them is.  Other formats (bytes, frames) are the inputs' own, not the
 * output's: no. */
static void
gst_stereo_depth_query_seeking (GstStereoDepth * self, GstQuery * query)
{
  GstPad *pads[2] = { GST_PAD (self->left_pad), GST_PAD (self->right_pad) };
  gboolean seekable;
  gint64 start = 0, end = -1;
  GstFormat format;
  guint i;

  gst_query_parse_seeking (query, &format, NULL, NULL, NULL);
  seekable = format == GST_FORMAT_TIME && gst_pad_is_linked (pads[0]);
  for (i = 0; i < 2 && seekable; i++) {
    GstQuery *q;
    gint64 a = 0, b = -1;

    if (!gst_pad_is_linked (pads[i]))
      continue;
    q = gst_query_new_seeking (format);
    seekable = gst_pad_peer_query (pads[i], q);
    if (seekable)
      gst_query_parse_seeking (q, NULL, &seekable, &a, &b);
    gst_query_unref (q);
    start = MAX (start, a);
    if (b >= 0)
      end = end < 0 ? b : MIN (end, b);
  }
  gst_query_set_seeking (query, format, seekable, seekable ? start : 0,
      seekable ? end : -1);
}

static gboolean
gst_stereo_depth_src_query (GstAggregator * agg, GstQuery * query)
{
  GstStereoDepth *self = GST_STEREO_DEPTH (agg);

  if (GST_QUERY_TYPE (query) == GST_QUERY_SEEKING) {
    gst_stereo_depth_query_seeking (self, query);
    return TRUE;
  }
  return gst_stereo_depth_cuda_query (self, query)
      || GST_AGGREGATOR_CLASS (parent_class)->src_query (agg, query);
}

static void
gst_stereo_depth_set_context (GstElement * element, GstContext * context)
{
  gst_stereo_depth_cuda_set_context (GST_STEREO_DEPTH (element), context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static GstFlowReturn
gst_stereo_depth_update_src_caps (GstAggregator * agg, GstCaps * downstream,
    GstCaps ** ret)
{
  GstStereoDepth *self = GST_STEREO_DEPTH (agg);
  const GstVideoInfo *in = &self->left_info;
  GstCaps *caps;
  gint width, height, par_n, par_d;

  if (GST_VIDEO_INFO_FORMAT (in) == GST_VIDEO_FORMAT_UNKNOWN)
    return GST_AGGREGATOR_FLOW_NEED_DATA;

  /* one view's size: the left input's, or half of it when it has both */
  gst_stereo_depth_views_view_info (&self->views, in, &width, &height,
      &par_n, &par_d);
  caps = gst_caps_new_simple ("video/x-raw",
      "format", G_TYPE_STRING, "GRAY16_LE",
      "width", G_TYPE_INT, width, "height", G_TYPE_INT, height,
      "framerate", GST_TYPE_FRACTION, GST_VIDEO_INFO_FPS_N (in),
      GST_VIDEO_INFO_FPS_D (in),
      "pixel-aspect-ratio", GST_TYPE_FRACTION, par_n, par_d, NULL);
  *ret = gst_caps_intersect (caps, downstream);
  /* downstream takes GRAY16_LE (negotiate() saw to that), but not this */
  if (gst_caps_is_empty (*ret)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream does not accept the disparity output %" GST_PTR_FORMAT
            "; its size, rate or pixel aspect ratio is the input's: put "
            "videoscale (or videorate) after stereodepth.", caps), (NULL));
    gst_caps_unref (caps);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  gst_caps_unref (caps);
  return GST_FLOW_OK;
}

/* GstAggregator gives up without a word when downstream takes no
 * GRAY16_LE at all (it asks before update_src_caps): when it gave up, say
 * what to do. */
static gboolean
gst_stereo_depth_negotiate (GstAggregator * agg)
{
  GstCaps *template, *downstream;
  gboolean refused;

  if (GST_AGGREGATOR_CLASS (parent_class)->negotiate (agg))
    return TRUE;
  template = gst_pad_get_pad_template_caps (agg->srcpad);
  downstream = gst_pad_peer_query_caps (agg->srcpad, template);
  refused = gst_caps_is_empty (downstream);
  gst_caps_unref (downstream);
  gst_caps_unref (template);
  if (refused)
    GST_ELEMENT_ERROR (agg, CORE, NEGOTIATION,
        ("Downstream does not accept the disparity output (GRAY16_LE); put "
            "videoconvert (or depthcolormap) after stereodepth."), (NULL));
  return FALSE;
}

static void
gst_stereo_depth_clear_pool (GstStereoDepth * self)
{
  GstBufferPool **pools[2] = { &self->pool, &self->confidence_pool };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (pools); i++) {
    if (*pools[i]) {
      gst_buffer_pool_set_active (*pools[i], FALSE);
      gst_clear_object (pools[i]);
    }
  }
}

/* An active pool of frames of info, min of them made up front. */
static GstBufferPool *
gst_stereo_depth_new_pool (const GstVideoInfo * info, guint min)
{
  GstBufferPool *pool = gst_video_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps = gst_video_info_to_caps (info);

  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (info),
      min, 0);
  gst_caps_unref (caps);
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE))
    gst_clear_object (&pool);
  return pool;
}

/* Output buffers, and the confidence's, come from pools of our own, set up
 * once per output caps, so that no frame pays for a fresh allocation. */
static gboolean
gst_stereo_depth_negotiated_src_caps (GstAggregator * agg, GstCaps * caps)
{
  GstStereoDepth *self = GST_STEREO_DEPTH (agg);

  if (!gst_video_info_from_caps (&self->out_info, caps))
    return FALSE;
  gst_stereo_depth_clear_pool (self);
  gst_video_info_set_format (&self->confidence_info, GST_VIDEO_FORMAT_GRAY8,
      GST_VIDEO_INFO_WIDTH (&self->out_info),
      GST_VIDEO_INFO_HEIGHT (&self->out_info));
  self->pool = gst_stereo_depth_new_pool (&self->out_info, 2);
  self->confidence_pool = gst_stereo_depth_new_pool (&self->confidence_info,
      0);
  return self->pool && self->confidence_pool;
}

static gboolean
gst_stereo_depth_start (GstAggregator * agg)
{
  GstStereoDepth *self = GST_STEREO_DEPTH (agg);

  gst_video_info_init (&self->left_info);
  gst_video_info_init (&self->right_info);
  gst_video_info_init (&self->out_info);
  memset (&self->views, 0, sizeof (self->views));
  self->right_ended = FALSE;
  self->drain_flow = GST_FLOW_OK;
  GST_OBJECT_LOCK (self);
  self->frames_processed = 0;
  self->frames_dropped = 0;
  self->pairs_late = 0;
  self->process_time_total = 0;
  GST_OBJECT_UNLOCK (self);
  gst_stereo_depth_pace_reset (self);
  if (!gst_stereo_depth_calib_load (self))
    return FALSE;
  gst_stereo_depth_watch_start (self);
  return TRUE;
}

/* A flushing seek: the pairs in flight belong to the old position.  The
 * streaming thread is stopped while this runs. */
static GstFlowReturn
gst_stereo_depth_flush (GstAggregator * agg)
{
  GstStereoDepth *self = GST_STEREO_DEPTH (agg);

  gst_stereo_depth_discard (self);
  self->drain_flow = GST_FLOW_OK;
  gst_stereo_depth_pace_flush (self);
  return GST_FLOW_OK;
}

static gboolean
gst_stereo_depth_stop (GstAggregator * agg)
{
  GstStereoDepth *self = GST_STEREO_DEPTH (agg);

  gst_stereo_depth_watch_stop (self);
  /* the streaming thread has stopped: nothing else uses these now; a pair
   * still in flight cannot be pushed any more */
  gst_stereo_depth_discard (self);
  gst_stereo_depth_free_engine (self);
  gst_stereo_depth_cuda_reset (self);
  self->cuda_input = FALSE;
  gst_stereo_depth_calib_clear (self);
  gst_stereo_depth_clear_pool (self);
  return TRUE;
}

/* A pipeline that was paused held both inputs: their silence counts from
 * the moment it plays again. */
static GstStateChangeReturn
gst_stereo_depth_change_state (GstElement * element, GstStateChange transition)
{
  if (transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING)
    gst_stereo_depth_watch_restart (GST_STEREO_DEPTH (element));
  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

static void
gst_stereo_depth_finalize (GObject * object)
{
  GstStereoDepth *self = GST_STEREO_DEPTH (object);

  gst_stereo_depth_watch_clear (self);
  g_mutex_clear (&self->aggregate_lock);
  gst_stereo_depth_calib_clear (self);
  g_free (self->calibration);
  g_free (self->calibration_right);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_stereo_depth_class_init (GstStereoDepthClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);
  SdParams defaults;
  guint i;

  GST_DEBUG_CATEGORY_INIT (gst_stereo_depth_debug, "stereodepth", 0,
      "stereo disparity");

  gobject_class->set_property = gst_stereo_depth_set_property;
  gobject_class->get_property = gst_stereo_depth_get_property;
  gobject_class->finalize = gst_stereo_depth_finalize;
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_stereo_depth_change_state);

  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where the disparity is computed; a change while playing takes "
          "effect at the next pair (the pairs in flight finish first)",
          GST_TYPE_STEREO_DEPTH_BACKEND, DEFAULT_BACKEND,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device used by the cuda and auto backends; a change while "
          "playing takes effect as a backend change does", 0, G_MAXINT,
          DEFAULT_CUDA_DEVICE_ID,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MAX_TIME_DIFFERENCE,
      g_param_spec_int64 ("max-time-difference", "Max time difference",
          "Largest running-time difference (ns) of a left and a right frame "
          "that form a pair (-1 = half the shorter frame duration)",
          -1, G_MAXINT64, DEFAULT_MAX_TIME_DIFFERENCE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_TIMEOUT,
      g_param_spec_int64 ("timeout", "Timeout",
          "Time (ns) one input may deliver no frame while the other "
          "delivers before the element posts a warning naming it and drops "
          "the other input's frames (counted in frames-dropped) until it "
          "delivers again.  -1 (auto): 4 frame durations when live, never "
          "when not live (it waits, as aggregators do), and at most 1 s for "
          "an input that is not linked; 0: never",
          -1, G_MAXINT64, DEFAULT_TIMEOUT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_PAIRS_IN_FLIGHT,
      g_param_spec_int ("pairs-in-flight", "Pairs in flight",
          "Pairs the engine works on at once.  2: the GPU computes a pair "
          "while the next one is copied in and the one before copied out "
          "(more pairs a second), and a pair's output waits for the next "
          "pair or EOS (one frame more latency).  1: each pair is finished "
          "before the next.  0 (auto): 2 on the CUDA backend when upstream "
          "is not live, else 1", 0, SD_ENGINE_MAX_IN_FLIGHT,
          DEFAULT_PAIRS_IN_FLIGHT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_INPUT_LAYOUT,
      g_param_spec_enum ("input-layout", "Input layout",
          "Where the two views come from: one per input, or both in the "
          "frames of sink_left (a side-by-side or top-bottom stereo camera; "
          "sink_right then stays unlinked).  auto follows sink_left's "
          "multiview-mode caps; the caps' multiview-flags say which view "
          "comes first", GST_TYPE_STEREO_DEPTH_INPUT_LAYOUT,
          DEFAULT_INPUT_LAYOUT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_CALIBRATION,
      g_param_spec_string ("calibration", "Calibration",
          "Stereo calibration to undistort and rectify both views with "
          "before matching: OpenCV's stereoCalibrate + stereoRectify "
          "output (YAML or XML: M1 D1 M2 D2 R1 R2 P1 P2), or the left "
          "camera's ROS camera_info YAML (with calibration-right).  Read "
          "when the element starts; a calibration made at another "
          "resolution of the same aspect ratio is scaled.  With "
          "output=depth its focal length and baseline (P2) replace the "
          "focal-length and baseline properties.  NULL: the views are "
          "taken as rectified", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_CALIBRATION_RIGHT,
      g_param_spec_string ("calibration-right", "Right calibration",
          "The right camera's ROS camera_info YAML, when calibration is "
          "the left camera's (ROS lengths are metres)", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_STATISTICS,
      g_param_spec_boolean ("statistics", "Statistics",
          "Post an element message \"stereodepth-statistics\" for every "
          "output frame: timestamp, running-time, valid-share (0 to 1), "
          "unit (pixels or millimetres, as output says), min and max of "
          "the valid values, process-time (ns in the engine), search-min "
          "and search-max (the disparities searched, pixels)", FALSE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_FRAMES_PROCESSED,
      g_param_spec_uint64 ("frames-processed", "Frames processed",
          "Pairs turned into disparity since the element started",
          0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_FRAMES_DROPPED,
      g_param_spec_uint64 ("frames-dropped", "Frames dropped",
          "Input frames dropped without a partner since the element started",
          0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_PAIRS_LATE,
      g_param_spec_uint64 ("pairs-late", "Pairs late",
          "Pairs skipped since the element started because their "
          "disparity could no longer be ready by their deadline (the "
          "backend is slower than the cameras, or than files played to a "
          "sink that syncs); each also posts a QoS message", 0, G_MAXUINT64,
          0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_MEAN_PROCESS_TIME,
      g_param_spec_uint64 ("mean-process-time", "Mean process time",
          "Mean time (ns) the streaming thread spent in the engine per pair "
          "since the element started (with two pairs in flight the engine "
          "works on a pair while the thread does not wait for it)",
          0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  sd_params_init (&defaults);
  for (i = 0; i < N_ENGINE_PARAMS; i++)
    g_object_class_install_property (gobject_class, PROP_PARAM_FIRST + i,
        param_spec (&sd_param_descs[i], &defaults));

  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &sink_left_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &sink_right_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &src_template, GST_TYPE_AGGREGATOR_PAD);
  gst_stereo_depth_confidence_class_init (agg_class);

  gst_element_class_set_static_metadata (element_class,
      "Stereo disparity", "Filter/Analyzer/Video",
      "Computes the disparity (or depth) of a left and right video stream, "
      "rectified or with a calibration.  Output: GRAY16_LE of one view's "
      "size, value = round(16 * d) with d the left-image disparity in "
      "pixels (left x matches right x - d), 0 = invalid; output=depth: "
      "millimetres.  Request src_confidence for each pixel's confidence: "
      "GRAY8, 0 = no match, 255 = most certain", "stereodepth developers");

  agg_class->aggregate = GST_DEBUG_FUNCPTR (gst_stereo_depth_aggregate);
  agg_class->sink_event = GST_DEBUG_FUNCPTR (gst_stereo_depth_sink_event);
  agg_class->sink_query = GST_DEBUG_FUNCPTR (gst_stereo_depth_sink_query);
  agg_class->src_query = GST_DEBUG_FUNCPTR (gst_stereo_depth_src_query);
  agg_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_stereo_depth_propose_allocation);
  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_stereo_depth_set_context);
  agg_class->flush = GST_DEBUG_FUNCPTR (gst_stereo_depth_flush);
  agg_class->get_next_time = GST_DEBUG_FUNCPTR (gst_stereo_depth_get_next_time);
  agg_class->update_src_caps =
      GST_DEBUG_FUNCPTR (gst_stereo_depth_update_src_caps);
  agg_class->negotiate = GST_DEBUG_FUNCPTR (gst_stereo_depth_negotiate);
  agg_class->negotiated_src_caps =
      GST_DEBUG_FUNCPTR (gst_stereo_depth_negotiated_src_caps);
  agg_class->start = GST_DEBUG_FUNCPTR (gst_stereo_depth_start);
  agg_class->stop = GST_DEBUG_FUNCPTR (gst_stereo_depth_stop);
}

static GstAggregatorPad *
gst_stereo_depth_add_sink_pad (GstStereoDepth * self,
    GstStaticPadTemplate * static_template)
{
  GstPadTemplate *templ = gst_static_pad_template_get (static_template);
  GstAggregatorPad *pad = g_object_new (GST_TYPE_AGGREGATOR_PAD,
      "name", templ->name_template, "direction", GST_PAD_SINK,
      "template", templ, NULL);

  gst_object_unref (templ);
  gst_element_add_pad (GST_ELEMENT (self), GST_PAD (pad));
  return pad;
}

static void
gst_stereo_depth_init (GstStereoDepth * self)
{
  sd_params_init (&self->params);
  self->backend = DEFAULT_BACKEND;
  self->cuda_device_id = DEFAULT_CUDA_DEVICE_ID;
  self->max_time_difference = DEFAULT_MAX_TIME_DIFFERENCE;
  self->timeout = DEFAULT_TIMEOUT;
  g_mutex_init (&self->aggregate_lock);
  self->pairs_in_flight = DEFAULT_PAIRS_IN_FLIGHT;
  self->input_layout = DEFAULT_INPUT_LAYOUT;
  gst_video_info_init (&self->left_info);
  gst_video_info_init (&self->right_info);
  gst_video_info_init (&self->out_info);

  self->left_pad = gst_stereo_depth_add_sink_pad (self, &sink_left_template);
  self->right_pad = gst_stereo_depth_add_sink_pad (self, &sink_right_template);
  gst_stereo_depth_watch_init (self);
  gst_stereo_depth_pace_init (self);
  gst_stereo_depth_confidence_init (self);
}
