/**
 * SECTION:element-stereorectify
 * @title: stereorectify
 *
 * Undistorts and rectifies one view of a calibrated stereo rig, in the
 * stream's own format (grey, RGB or YUV with 8 bits a sample), from the
 * calibration file stereodepth reads: OpenCV's stereoCalibrate +
 * stereoRectify output, or a pair of ROS camera_info files.  It runs the
 * maps and the remap of stereodepth's calibration stage, so its left view
 * lines up pixel for pixel with the disparity (or depth) that stereodepth
 * computes from the same rig with calibration set: what a colour image,
 * an overlay or a coloured point cloud of that depth needs.  The luma of
 * a YUV view (and a GRAY8 view) has the very bits stereodepth matches;
 * subsampled chroma is read where the luma it covers is.
 *
 * stereodepth's align-rows moves the right view only, and never its
 * output's geometry: the left view of stereorectify stays aligned with the
 * disparity whatever align-rows measures.
 *
 * The remap runs on the CPU, its rows over the processor's cores.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 stereodepth name=sd calibration=rig.yaml ! depthcolormap ! \
 *     videoconvert ! autovideosink \
 *   v4l2src device=/dev/video0 ! videoconvert ! tee name=l \
 *   l. ! queue ! stereorectify calibration=rig.yaml ! videoconvert ! autovideosink \
 *   l. ! queue ! sd.sink_left \
 *   v4l2src device=/dev/video2 ! videoconvert ! queue ! sd.sink_right
 * ]|
 */
#include "gststereorectify.h"

#include "gstsdcalib.h"
#include "gstsdenums.h"

GST_DEBUG_CATEGORY_STATIC (gst_stereo_rectify_debug);
#define GST_CAT_DEFAULT gst_stereo_rectify_debug

/* The formats whose every sample is one byte at a place GstVideoFormatInfo
 * gives (plane, offset, pixel stride, subsampling): planar and packed
 * alike.  Others (10 and 16 bits, v210...) go through videoconvert. */
#define FORMATS "{ GRAY8, I420, YV12, Y41B, Y42B, Y444, A420, NV12, NV21, " \
    "NV16, NV61, NV24, YUY2, YVYU, UYVY, AYUV, VUYA, RGB, BGR, RGBx, BGRx, " \
    "xRGB, xBGR, RGBA, BGRA, ARGB, ABGR, GBR, GBRA }"

static GstStaticPadTemplate sink_template =
GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (FORMATS)));

static GstStaticPadTemplate src_template =
GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (FORMATS)));

enum
{
  PROP_0,
  PROP_CALIBRATION,
  PROP_CALIBRATION_RIGHT,
  PROP_VIEW,
};

#define DEFAULT_VIEW GST_STEREO_RECTIFY_VIEW_LEFT

static const SdEnumEntry view_entries[] = {
  {"left", GST_STEREO_RECTIFY_VIEW_LEFT,
      "The left camera's view (the one stereodepth's output lines up with)"},
  {"right", GST_STEREO_RECTIFY_VIEW_RIGHT, "The right camera's view"},
  {NULL, 0, NULL}
};

#define gst_stereo_rectify_parent_class parent_class
G_DEFINE_TYPE (GstStereoRectify, gst_stereo_rectify, GST_TYPE_VIDEO_FILTER);
GST_ELEMENT_REGISTER_DEFINE (stereorectify, "stereorectify", GST_RANK_NONE,
    GST_TYPE_STEREO_RECTIFY);

static void
gst_stereo_rectify_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstStereoRectify *self = GST_STEREO_RECTIFY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_CALIBRATION:
      g_free (self->calibration);
      self->calibration = g_value_dup_string (value);
      break;
    case PROP_CALIBRATION_RIGHT:
      g_free (self->calibration_right);
      self->calibration_right = g_value_dup_string (value);
      break;
    case PROP_VIEW:
      self->view = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_stereo_rectify_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstStereoRectify *self = GST_STEREO_RECTIFY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_CALIBRATION:
      g_value_set_string (value, self->calibration);
      break;
    case PROP_CALIBRATION_RIGHT:
      g_value_set_string (value, self->calibration_right);
      break;
    case PROP_VIEW:
      g_value_set_enum (value, self->view);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* The maps of the negotiated size go; the calibration stays. */
static void
clear_maps (GstStereoRectify * self)
{
  g_clear_pointer (&self->rect, sd_rectification_free);
  g_clear_pointer (&self->chroma_map, free);
  self->n_parts = 0;
}

static gboolean
gst_stereo_rectify_start (GstBaseTransform * trans)
{
  GstStereoRectify *self = GST_STEREO_RECTIFY (trans);
  gchar *path, *right_path;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  path = g_strdup (self->calibration);
  right_path = g_strdup (self->calibration_right);
  self->view_used = self->view;
  GST_OBJECT_UNLOCK (self);

  if (!path && !right_path) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("stereorectify has no calibration: set calibration to the rig's "
            "OpenCV or ROS calibration file."), (NULL));
    return FALSE;
  }
  ok = gst_sd_calib_read (GST_ELEMENT (self), path, right_path,
      &self->calib);
  g_free (path);
  g_free (right_path);
  return ok;
}

static gboolean
gst_stereo_rectify_stop (GstBaseTransform * trans)
{
  GstStereoRectify *self = GST_STEREO_RECTIFY (trans);

  clear_maps (self);
  g_clear_pointer (&self->calib, g_free);
  return TRUE;
}

/* The map for samples subsampled by sub_x and sub_y: the view's, or the
 * chroma's, made once (the formats here have one chroma subsampling).
 * NULL when out of memory. */
static const gint32 *
part_map (GstStereoRectify * self, const gint32 * view_map, gint sub_x,
    gint sub_y, gint * width, gint * height)
{
  if (sub_x == 0 && sub_y == 0) {
    *width = self->rect->width;
    *height = self->rect->height;
    return view_map;
  }
  if (!self->chroma_map)
    self->chroma_map = sd_rectify_map_subsampled (view_map,
        self->rect->width, self->rect->height, sub_x, sub_y,
        &self->chroma_width, &self->chroma_height);
  *width = self->chroma_width;
  *height = self->chroma_height;
  return self->chroma_map;
}

/* Every byte of the format's samples, as parts: a plane's components, or,
 * in a packed plane whose components are not subsampled, every byte of
 * its pixels (the padding byte of RGBx too, so no byte goes out
 * unwritten). */
static gboolean
plan_parts (GstStereoRectify * self, const GstVideoInfo * info,
    const gint32 * view_map)
{
  const GstVideoFormatInfo *f = info->finfo;
  guint c, p;

  self->n_parts = 0;
  for (p = 0; p < GST_VIDEO_FORMAT_INFO_N_PLANES (f); p++) {
    gint pstride = 0, sub_x = 0, sub_y = 0;
    gboolean whole = TRUE;

    for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (f); c++) {
      if (GST_VIDEO_FORMAT_INFO_PLANE (f, c) != p)
        continue;
      pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (f, c);
      if (GST_VIDEO_FORMAT_INFO_W_SUB (f, c)
          || GST_VIDEO_FORMAT_INFO_H_SUB (f, c))
        whole = FALSE;
    }
    for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (f); c++) {
      GstStereoRectifyPart *part;
      gint k, first = 0, last = 0;

      if (GST_VIDEO_FORMAT_INFO_PLANE (f, c) != p)
        continue;
      if (whole) {
        /* the plane's bytes at once, from its first component */
        last = pstride - 1;
      } else {
        first = last = GST_VIDEO_FORMAT_INFO_POFFSET (f, c);
        sub_x = GST_VIDEO_FORMAT_INFO_W_SUB (f, c);
        sub_y = GST_VIDEO_FORMAT_INFO_H_SUB (f, c);
        pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (f, c);
      }
      for (k = first; k <= last; k++) {
        if (self->n_parts == GST_STEREO_RECTIFY_MAX_PARTS)
          return FALSE;
        part = &self->parts[self->n_parts++];
        part->plane = p;
        part->offset = k;
        part->pixel_stride = pstride;
        part->map = part_map (self, view_map, whole ? 0 : sub_x,
            whole ? 0 : sub_y, &part->width, &part->height);
        if (!part->map)
          return FALSE;
      }
      if (whole)
        break;
    }
  }
  return TRUE;
}

static gboolean
gst_stereo_rectify_set_info (GstVideoFilter * filter,
    G_GNUC_UNUSED GstCaps * incaps,
    GstVideoInfo * in_info, G_GNUC_UNUSED GstCaps * outcaps,
    G_GNUC_UNUSED GstVideoInfo * out_info)
{
  GstStereoRectify *self = GST_STEREO_RECTIFY (filter);
  const gint w = GST_VIDEO_INFO_WIDTH (in_info);
  const gint h = GST_VIDEO_INFO_HEIGHT (in_info);
  char msg[512];

  clear_maps (self);
  self->rect = sd_rectification_new (self->calib, w, h, msg, sizeof (msg));
  if (!self->rect) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", msg), (NULL));
    return FALSE;
  }
  if (!plan_parts (self, in_info, self->rect->map[self->view_used])) {
    clear_maps (self);
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Not enough memory for the maps of %dx%d %s frames.", w, h,
            GST_VIDEO_INFO_NAME (in_info)), (NULL));
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "%s view, %dx%d %s: %d parts",
      view_entries[self->view_used].nick, w, h, GST_VIDEO_INFO_NAME (in_info),
      self->n_parts);
  return TRUE;
}

static GstFlowReturn
gst_stereo_rectify_transform_frame (GstVideoFilter * filter,
    GstVideoFrame * in, GstVideoFrame * out)
{
  GstStereoRectify *self = GST_STEREO_RECTIFY (filter);

  for (gint i = 0; i < self->n_parts; i++) {
    const GstStereoRectifyPart *part = &self->parts[i];
    const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (in, part->plane);
    guint8 *dst = GST_VIDEO_FRAME_PLANE_DATA (out, part->plane);

    sd_rectify_component (part->map, src + part->offset,
        GST_VIDEO_FRAME_PLANE_STRIDE (in, part->plane), dst + part->offset,
        GST_VIDEO_FRAME_PLANE_STRIDE (out, part->plane), part->pixel_stride,
        part->width, part->height);
  }
  return GST_FLOW_OK;
}

static void
gst_stereo_rectify_finalize (GObject * object)
{
  GstStereoRectify *self = GST_STEREO_RECTIFY (object);

  clear_maps (self);
  g_free (self->calib);
  g_free (self->calibration);
  g_free (self->calibration_right);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_stereo_rectify_class_init (GstStereoRectifyClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;
  GType view_type = gst_sd_enum_type ("GstStereoRectifyView", view_entries);

  GST_DEBUG_CATEGORY_INIT (gst_stereo_rectify_debug, "stereorectify", 0,
      "stereo view rectification");

  gobject_class->set_property = gst_stereo_rectify_set_property;
  gobject_class->get_property = gst_stereo_rectify_get_property;
  gobject_class->finalize = gst_stereo_rectify_finalize;

  g_object_class_install_property (gobject_class, PROP_CALIBRATION,
      g_param_spec_string ("calibration", "Calibration",
          "The rig's stereo calibration, as stereodepth reads it: OpenCV's "
          "stereoCalibrate + stereoRectify output (YAML or XML: M1 D1 M2 "
          "D2 R1 R2 P1 P2), or the left camera's ROS camera_info YAML (with "
          "calibration-right).  Read when the element starts; a "
          "calibration made at another resolution of the same aspect ratio "
          "is scaled.  Required", NULL, flags));
  g_object_class_install_property (gobject_class, PROP_CALIBRATION_RIGHT,
      g_param_spec_string ("calibration-right", "Right calibration",
          "The right camera's ROS camera_info YAML, when calibration is "
          "the left camera's", NULL, flags));
  g_object_class_install_property (gobject_class, PROP_VIEW,
      g_param_spec_enum ("view", "View",
          "Which camera the stream comes from", view_type, DEFAULT_VIEW,
          flags));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Stereo view rectification", "Filter/Effect/Video",
      "Undistorts and rectifies one view of a calibrated stereo rig in its "
      "own format, aligned pixel for pixel with stereodepth's output of "
      "that rig", "stereodepth developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_stereo_rectify_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_stereo_rectify_stop);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_stereo_rectify_set_info);
  filter_class->transform_frame =
      GST_DEBUG_FUNCPTR (gst_stereo_rectify_transform_frame);
}

static void
gst_stereo_rectify_init (GstStereoRectify * self)
{
  self->view = DEFAULT_VIEW;
}
