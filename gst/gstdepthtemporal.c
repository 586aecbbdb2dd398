/**
 * SECTION:element-depthtemporal
 * @title: depthtemporal
 *
 * Steadies the GRAY16_LE output of stereodepth (disparity, or depth with
 * output=depth; 0 = invalid) over time.  Each pixel keeps its last value:
 * a new value within delta of it moves it by the share alpha of the
 * difference, which evens out the frame-to-frame noise of a still scene;
 * a larger change is taken at once, so moving edges leave no trail; and
 * where the new frame has no value the pixel may keep its last one for
 * persistence frames, so holes blink less.  A flush (a seek) or a
 * discontinuity starts again from the next frame.
 *
 * delta is in the stream's units: 1/16 pixel for disparity (the default 16
 * is one pixel), millimetres for depth.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 stereodepth name=sd ! depthtemporal persistence=2 ! \
 *     depthcolormap ! videoconvert ! autovideosink \
 *   v4l2src device=/dev/video0 ! videoconvert ! video/x-raw,format=GRAY8,width=640,height=480 ! queue ! sd.sink_left \
 *   v4l2src device=/dev/video2 ! videoconvert ! video/x-raw,format=GRAY8,width=640,height=480 ! queue ! sd.sink_right
 * ]|
 */
#include "gstdepthtemporal.h"

#include <math.h>

GST_DEBUG_CATEGORY_STATIC (gst_depth_temporal_debug);
#define GST_CAT_DEFAULT gst_depth_temporal_debug

static GstStaticPadTemplate sink_template =
GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY16_LE")));

static GstStaticPadTemplate src_template =
GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY16_LE")));

enum
{
  PROP_0,
  PROP_ALPHA,
  PROP_DELTA,
  PROP_PERSISTENCE,
};

#define DEFAULT_ALPHA 0.4
#define DEFAULT_DELTA 16
#define DEFAULT_PERSISTENCE 0
/* alpha is applied in 1/256: the smallest step it has */
#define MIN_ALPHA (1.0 / 256)

#define gst_depth_temporal_parent_class parent_class
G_DEFINE_TYPE (GstDepthTemporal, gst_depth_temporal, GST_TYPE_VIDEO_FILTER);
GST_ELEMENT_REGISTER_DEFINE (depthtemporal, "depthtemporal", GST_RANK_NONE,
    GST_TYPE_DEPTH_TEMPORAL);

static void
gst_depth_temporal_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstDepthTemporal *self = GST_DEPTH_TEMPORAL (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ALPHA:
      self->alpha = g_value_get_double (value);
      break;
    case PROP_DELTA:
      self->delta = g_value_get_uint (value);
      break;
    case PROP_PERSISTENCE:
      self->persistence = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_depth_temporal_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstDepthTemporal *self = GST_DEPTH_TEMPORAL (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ALPHA:
      g_value_set_double (value, self->alpha);
      break;
    case PROP_DELTA:
      g_value_set_uint (value, self->delta);
      break;
    case PROP_PERSISTENCE:
      g_value_set_uint (value, self->persistence);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Whether any pixel of the frame holds a value (is not 0). */
static gboolean
gst_depth_temporal_has_value (const GstVideoFrame * frame)
{
  const gint width = GST_VIDEO_FRAME_WIDTH (frame);
  gint x, y;

  for (y = 0; y < GST_VIDEO_FRAME_HEIGHT (frame); y++) {
    const guint16 *row = (const guint16 *) ((const guint8 *)
        GST_VIDEO_FRAME_PLANE_DATA (frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0));

    for (x = 0; x < width; x++)
      if (row[x])
        return TRUE;
  }
  return FALSE;
}

static GstFlowReturn
gst_depth_temporal_transform_frame_ip (GstVideoFilter * filter,
    GstVideoFrame * frame)
{
  GstDepthTemporal *self = GST_DEPTH_TEMPORAL (filter);
  const gint width = GST_VIDEO_FRAME_WIDTH (frame);
  const gint height = GST_VIDEO_FRAME_HEIGHT (frame);
  SdTemporalParams p;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  p.alpha = (int) lround (self->alpha * 256);
  p.delta = (int) self->delta;
  p.persistence = (int) self->persistence;
  GST_OBJECT_UNLOCK (self);

  if (GST_BUFFER_IS_DISCONT (frame->buffer))
    sd_temporal_reset (&self->history);
  ok = sd_temporal_apply (&self->history, &p,
      GST_VIDEO_FRAME_PLANE_DATA (frame, 0), width, height,
      GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0));

  if (!ok) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Not enough memory to remember %dx%d frames.", width, height),
        (NULL));
    return GST_FLOW_ERROR;
  }
  /* a gap's frame (stereodepth's have no value) that persistence filled
   * from the frames before is a frame to show, no longer a gap */
  if (GST_BUFFER_FLAG_IS_SET (frame->buffer, GST_BUFFER_FLAG_GAP)
      && gst_depth_temporal_has_value (frame))
    GST_BUFFER_FLAG_UNSET (frame->buffer, GST_BUFFER_FLAG_GAP);
  return GST_FLOW_OK;
}

/* A flush (a seek) leaves the frames before behind. */
static gboolean
gst_depth_temporal_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstDepthTemporal *self = GST_DEPTH_TEMPORAL (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    sd_temporal_reset (&self->history);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_depth_temporal_stop (GstBaseTransform * trans)
{
  GstDepthTemporal *self = GST_DEPTH_TEMPORAL (trans);

  sd_temporal_clear (&self->history);
  return TRUE;
}

static void
gst_depth_temporal_finalize (GObject * object)
{
  sd_temporal_clear (&GST_DEPTH_TEMPORAL (object)->history);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_depth_temporal_class_init (GstDepthTemporalClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_depth_temporal_debug, "depthtemporal", 0,
      "temporal depth filter");

  gobject_class->set_property = gst_depth_temporal_set_property;
  gobject_class->get_property = gst_depth_temporal_get_property;
  gobject_class->finalize = gst_depth_temporal_finalize;

  g_object_class_install_property (gobject_class, PROP_ALPHA,
      g_param_spec_double ("alpha", "Alpha",
          "Share of the difference a new value within delta moves a pixel "
          "(1 = no smoothing; small = steadier, slower to follow)",
          MIN_ALPHA, 1, DEFAULT_ALPHA, flags));
  g_object_class_install_property (gobject_class, PROP_DELTA,
      g_param_spec_uint ("delta", "Delta",
          "Largest change that is smoothed, in the stream's units (1/16 "
          "pixel of disparity, or millimetres); larger ones are taken at "
          "once", 0, G_MAXUINT16, DEFAULT_DELTA, flags));
  g_object_class_install_property (gobject_class, PROP_PERSISTENCE,
      g_param_spec_uint ("persistence", "Persistence",
          "Frames a pixel keeps its last value while the stream has none "
          "for it (0 = holes stay holes)", 0, G_MAXUINT8, DEFAULT_PERSISTENCE,
          flags));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Temporal depth filter", "Filter/Effect/Video",
      "Steadies a GRAY16_LE disparity or depth stream (0 = invalid) over "
      "time: noise smoothed, changes taken at once, holes optionally held",
      "stereodepth developers");

  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_depth_temporal_sink_event);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_depth_temporal_stop);
  filter_class->transform_frame_ip =
      GST_DEBUG_FUNCPTR (gst_depth_temporal_transform_frame_ip);
}

static void
gst_depth_temporal_init (GstDepthTemporal * self)
{
  self->alpha = DEFAULT_ALPHA;
  self->delta = DEFAULT_DELTA;
  self->persistence = DEFAULT_PERSISTENCE;
  sd_temporal_init (&self->history);
}
