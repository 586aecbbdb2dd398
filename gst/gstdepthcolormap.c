/**
 * SECTION:element-depthcolormap
 * @title: depthcolormap
 *
 * Turns the GRAY16_LE disparity of stereodepth (value = 16 * d, 0 = invalid)
 * into colours: the live-preview companion of stereodepth.  Invalid pixels
 * are black.  With input=depth it colours stereodepth's output=depth
 * (millimetres) the same way round: near is warm, far is cold.  The colour range is either taken from each frame (range=auto,
 * optionally smoothed over time so the colours do not flicker) or fixed in
 * pixels of disparity (range=fixed with min-disparity and max-disparity).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 stereodepth name=sd ! depthcolormap colormap=turbo ! \
 *     videoconvert ! autovideosink \
 *   v4l2src device=/dev/video0 ! videoconvert ! video/x-raw,format=GRAY8,width=640,height=480 ! queue ! sd.sink_left \
 *   v4l2src device=/dev/video2 ! videoconvert ! video/x-raw,format=GRAY8,width=640,height=480 ! queue ! sd.sink_right
 * ]|
 */
#include "gstdepthcolormap.h"

#include <math.h>

#include "gstsdenums.h"

GST_DEBUG_CATEGORY_STATIC (gst_depth_colormap_debug);
#define GST_CAT_DEFAULT gst_depth_colormap_debug

#define SRC_FORMATS "{ RGBx, BGRx, RGBA, BGRA }"

static GstStaticPadTemplate sink_template =
GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY16_LE")));

static GstStaticPadTemplate src_template =
GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (SRC_FORMATS)));

enum
{
  PROP_0,
  PROP_COLORMAP,
  PROP_INPUT,
  PROP_RANGE,
  PROP_MIN_DISPARITY,
  PROP_MAX_DISPARITY,
  PROP_MIN_DEPTH,
  PROP_MAX_DEPTH,
  PROP_SMOOTHING,
};

#define DEFAULT_COLORMAP SD_COLORMAP_TURBO
#define DEFAULT_RANGE GST_DEPTH_COLORMAP_RANGE_AUTO
#define DEFAULT_MIN_DISPARITY 0.0
#define DEFAULT_MAX_DISPARITY 64.0
#define DEFAULT_SMOOTHING 0.0
#define DEFAULT_INPUT GST_DEPTH_COLORMAP_INPUT_DISPARITY
#define DEFAULT_MIN_DEPTH 300.0
#define DEFAULT_MAX_DEPTH 10000.0
/* depth 65535: that or farther (stereodepth's output contract) */
#define FAR_DEPTH 65535
/* the largest disparity stereodepth can output */
#define MAX_DISPARITY ((gdouble) (SD_MAX_MIN_DISPARITY + SD_MAX_DISPARITIES))

static const SdEnumEntry input_entries[] = {
  {"disparity", GST_DEPTH_COLORMAP_INPUT_DISPARITY,
      "16 * disparity (stereodepth output=disparity): large is near"},
  {"depth", GST_DEPTH_COLORMAP_INPUT_DEPTH,
      "millimetres (stereodepth output=depth): small is near"},
  {NULL, 0, NULL}
};

static const SdEnumEntry range_entries[] = {
  {"auto", GST_DEPTH_COLORMAP_RANGE_AUTO,
      "From each frame's smallest and largest valid value"},
  {"fixed", GST_DEPTH_COLORMAP_RANGE_FIXED,
      "From min-disparity to max-disparity, or min-depth to max-depth"},
  {NULL, 0, NULL}
};

#define gst_depth_colormap_parent_class parent_class
G_DEFINE_TYPE (GstDepthColormap, gst_depth_colormap, GST_TYPE_VIDEO_FILTER);
GST_ELEMENT_REGISTER_DEFINE (depthcolormap, "depthcolormap", GST_RANK_NONE,
    GST_TYPE_DEPTH_COLORMAP);

static void
gst_depth_colormap_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstDepthColormap *self = GST_DEPTH_COLORMAP (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_COLORMAP:
      self->colormap = g_value_get_enum (value);
      break;
    case PROP_INPUT:
      self->input = g_value_get_enum (value);
      break;
    case PROP_MIN_DEPTH:
      self->min_depth = g_value_get_double (value);
      break;
    case PROP_MAX_DEPTH:
      self->max_depth = g_value_get_double (value);
      break;
    case PROP_RANGE:
      self->range = g_value_get_enum (value);
      break;
    case PROP_MIN_DISPARITY:
      self->min_disparity = g_value_get_double (value);
      break;
    case PROP_MAX_DISPARITY:
      self->max_disparity = g_value_get_double (value);
      break;
    case PROP_SMOOTHING:
      self->smoothing = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_depth_colormap_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstDepthColormap *self = GST_DEPTH_COLORMAP (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_COLORMAP:
      g_value_set_enum (value, self->colormap);
      break;
    case PROP_INPUT:
      g_value_set_enum (value, self->input);
      break;
    case PROP_MIN_DEPTH:
      g_value_set_double (value, self->min_depth);
      break;
    case PROP_MAX_DEPTH:
      g_value_set_double (value, self->max_depth);
      break;
    case PROP_RANGE:
      g_value_set_enum (value, self->range);
      break;
    case PROP_MIN_DISPARITY:
      g_value_set_double (value, self->min_disparity);
      break;
    case PROP_MAX_DISPARITY:
      g_value_set_double (value, self->max_disparity);
      break;
    case PROP_SMOOTHING:
      g_value_set_double (value, self->smoothing);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Same size, rate and aspect on both sides; only the format changes. */
static GstCaps *
gst_depth_colormap_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *other = gst_caps_copy (caps);
  GstCaps *templ = gst_pad_get_pad_template_caps (direction == GST_PAD_SINK ?
      GST_BASE_TRANSFORM_SRC_PAD (trans) : GST_BASE_TRANSFORM_SINK_PAD (trans));
  const GValue *formats =
      gst_structure_get_value (gst_caps_get_structure (templ, 0), "format");
  guint i;

  for (i = 0; i < gst_caps_get_size (other); i++) {
    GstStructure *s = gst_caps_get_structure (other, i);

    gst_structure_set_value (s, "format", formats);
    gst_structure_remove_fields (s, "colorimetry", "chroma-site", NULL);
  }
  gst_caps_unref (templ);

  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, other,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (other);
    other = tmp;
  }
  return other;
}

/* The range of this frame in input units (1/16 pixel or millimetres):
 * fixed, or the frame's valid extremes blended with the previous range
 * (a depth of "that or farther" left out: it would stretch the range). */
static void
gst_depth_colormap_frame_range (GstDepthColormap * self,
    const GstVideoFrame * in, gboolean depth, gint * lo, gint * hi)
{
  GstDepthColormapRange range;
  gdouble min_v, max_v, smoothing;
  const gint width = GST_VIDEO_FRAME_WIDTH (in);
  /* 0 is no disparity; a depth of "that or farther" would stretch the
   * range (for disparity, far is 0 again) */
  const guint16 far = depth ? FAR_DEPTH : 0;
  guint16 vmin = G_MAXUINT16, vmax = 0;
  gint x, y;

  GST_OBJECT_LOCK (self);
  range = self->range;
  min_v = depth ? self->min_depth : self->min_disparity * 16;
  max_v = depth ? self->max_depth : self->max_disparity * 16;
  smoothing = self->smoothing;
  GST_OBJECT_UNLOCK (self);

  if (range == GST_DEPTH_COLORMAP_RANGE_FIXED) {
    *lo = (gint) lrint (min_v);
    *hi = (gint) lrint (max_v);
    return;
  }

  for (y = 0; y < GST_VIDEO_FRAME_HEIGHT (in); y++) {
    const guint16 *row = (const guint16 *) ((const guint8 *)
        GST_VIDEO_FRAME_PLANE_DATA (in, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (in, 0));

    /* in masks, so that the compiler vectorizes it (GCC 12 does not
     * with a branch or a conditional value) */
    for (x = 0; x < width; x++) {
      const guint16 v = GUINT16_FROM_LE (row[x]);
      const guint16 left_out = (guint16) - ((v == 0) | (v == far));
      const guint16 as_min = v | left_out, as_max = v & (guint16) ~ left_out;

      vmin = as_min < vmin ? as_min : vmin;
      vmax = as_max > vmax ? as_max : vmax;
    }
  }

  /* a frame without valid pixels keeps the previous range */
  if (vmax > 0) {
    if (self->have_auto_range) {
      self->auto_lo = smoothing * self->auto_lo + (1 - smoothing) * vmin;
      self->auto_hi = smoothing * self->auto_hi + (1 - smoothing) * vmax;
    } else {
      self->auto_lo = vmin;
      self->auto_hi = vmax;
      self->have_auto_range = TRUE;
    }
  }
  *lo = (gint) lrint (self->auto_lo);
  *hi = (gint) lrint (self->auto_hi);
}

/* self->pixel_of for map, input and range [lo, hi] in out's byte order:
 * 0 (no disparity) black, the range's ends and beyond its first and last
 * colours, the rest spread evenly over the 256 (far to near). */
static void
gst_depth_colormap_make_pixels (GstDepthColormap * self,
    const GstVideoFrame * out, SdColormap map, gboolean depth, gint lo,
    gint hi)
{
  const gint span = MAX (hi - lo, 1);
  guint8 table[256][3];
  guint8 px[4];
  gint v, i;

  if (self->pixel_format == GST_VIDEO_FRAME_FORMAT (out)
      && self->pixel_map == map && self->pixel_depth == depth
      && self->pixel_lo == lo && self->pixel_hi == hi)
    return;
  sd_colormap_table (map, table);
  /* the byte that is neither R, G nor B: alpha or padding, opaque either
   * way */
  px[0 + 1 + 2 + 3 - GST_VIDEO_FRAME_COMP_POFFSET (out, GST_VIDEO_COMP_R)
      - GST_VIDEO_FRAME_COMP_POFFSET (out, GST_VIDEO_COMP_G)
      - GST_VIDEO_FRAME_COMP_POFFSET (out, GST_VIDEO_COMP_B)] = 255;
  for (v = 0; v <= G_MAXUINT16; v++) {
    i = v <= lo ? 0 : v >= hi ? 255 : ((v - lo) * 255 + span / 2) / span;
    /* the colour map runs far to near: depth runs near to far */
    if (depth)
      i = 255 - i;
    for (gint c = 0; c < 3; c++)
      px[GST_VIDEO_FRAME_COMP_POFFSET (out, GST_VIDEO_COMP_R + c)] =
          v == 0 ? 0 : table[i][c];
    memcpy (&self->pixel_of[v], px, 4);
  }
  self->pixel_format = GST_VIDEO_FRAME_FORMAT (out);
  self->pixel_map = map;
  self->pixel_depth = depth;
  self->pixel_lo = lo;
  self->pixel_hi = hi;
}

static GstFlowReturn
gst_depth_colormap_transform_frame (GstVideoFilter * filter,
    GstVideoFrame * in, GstVideoFrame * out)
{
  GstDepthColormap *self = GST_DEPTH_COLORMAP (filter);
  SdColormap map;
  gint lo, hi, x, y;
  gboolean depth;

  GST_OBJECT_LOCK (self);
  map = self->colormap;
  depth = self->input == GST_DEPTH_COLORMAP_INPUT_DEPTH;
  GST_OBJECT_UNLOCK (self);
  gst_depth_colormap_frame_range (self, in, depth, &lo, &hi);
  gst_depth_colormap_make_pixels (self, out, map, depth, lo, hi);

  for (y = 0; y < GST_VIDEO_FRAME_HEIGHT (in); y++) {
    const guint16 *src = (const guint16 *) ((const guint8 *)
        GST_VIDEO_FRAME_PLANE_DATA (in, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (in, 0));
    guint32 *dst = (guint32 *) (gpointer) ((guint8 *)
        GST_VIDEO_FRAME_PLANE_DATA (out, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (out, 0));

    for (x = 0; x < GST_VIDEO_FRAME_WIDTH (in); x++)
      dst[x] = self->pixel_of[GUINT16_FROM_LE (src[x])];
  }
  return GST_FLOW_OK;
}

static gboolean
gst_depth_colormap_start (GstBaseTransform * trans)
{
  GstDepthColormap *self = GST_DEPTH_COLORMAP (trans);

  self->have_auto_range = FALSE;
  self->pixel_of = g_new (guint32, G_MAXUINT16 + 1);
  /* the first frame makes the pixels */
  self->pixel_format = GST_VIDEO_FORMAT_UNKNOWN;
  return TRUE;
}

static gboolean
gst_depth_colormap_stop (GstBaseTransform * trans)
{
  GstDepthColormap *self = GST_DEPTH_COLORMAP (trans);

  g_clear_pointer (&self->pixel_of, g_free);
  return TRUE;
}

static void
gst_depth_colormap_class_init (GstDepthColormapClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;
  GType colormap_type = gst_sd_enum_type ("GstDepthColormapColormap",
      sd_colormap_entries);
  GType input_type = gst_sd_enum_type ("GstDepthColormapInput",
      input_entries);
  GType range_type = gst_sd_enum_type ("GstDepthColormapRange",
      range_entries);

  GST_DEBUG_CATEGORY_INIT (gst_depth_colormap_debug, "depthcolormap", 0,
      "disparity colour map");

  gobject_class->set_property = gst_depth_colormap_set_property;
  gobject_class->get_property = gst_depth_colormap_get_property;

  g_object_class_install_property (gobject_class, PROP_COLORMAP,
      g_param_spec_enum ("colormap", "Colour map", "Colours of the disparity",
          colormap_type, DEFAULT_COLORMAP, flags));
  g_object_class_install_property (gobject_class, PROP_INPUT,
      g_param_spec_enum ("input", "Input",
          "What the GRAY16 input holds: stereodepth's output property",
          input_type, DEFAULT_INPUT, flags));
  g_object_class_install_property (gobject_class, PROP_RANGE,
      g_param_spec_enum ("range", "Range",
          "Which disparities the colour map spans",
          range_type, DEFAULT_RANGE, flags));
  g_object_class_install_property (gobject_class, PROP_MIN_DISPARITY,
      g_param_spec_double ("min-disparity", "Min disparity",
          "range=fixed: disparity (pixels) of the first colour",
          0, MAX_DISPARITY, DEFAULT_MIN_DISPARITY, flags));
  g_object_class_install_property (gobject_class, PROP_MAX_DISPARITY,
      g_param_spec_double ("max-disparity", "Max disparity",
          "range=fixed: disparity (pixels) of the last colour; larger ones "
          "get it too", 0, MAX_DISPARITY, DEFAULT_MAX_DISPARITY, flags));
  g_object_class_install_property (gobject_class, PROP_MIN_DEPTH,
      g_param_spec_double ("min-depth", "Min depth",
          "range=fixed, input=depth: depth (mm) of the nearest colour; "
          "nearer ones get it too", 0, 65535, DEFAULT_MIN_DEPTH, flags));
  g_object_class_install_property (gobject_class, PROP_MAX_DEPTH,
      g_param_spec_double ("max-depth", "Max depth",
          "range=fixed, input=depth: depth (mm) of the farthest colour; "
          "farther ones get it too", 0, 65535, DEFAULT_MAX_DEPTH, flags));
  g_object_class_install_property (gobject_class, PROP_SMOOTHING,
      g_param_spec_double ("smoothing", "Smoothing",
          "range=auto: share of the previous range kept in each new frame's "
          "range (0 = each frame alone, 0.9 = slow and steady)",
          0, 1, DEFAULT_SMOOTHING, flags));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Disparity colour map", "Filter/Effect/Video",
      "Colours a GRAY16_LE disparity (value = 16 * d, 0 = invalid) for "
      "viewing; invalid pixels are black", "stereodepth developers");

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_depth_colormap_transform_caps);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_depth_colormap_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_depth_colormap_stop);
  filter_class->transform_frame =
      GST_DEBUG_FUNCPTR (gst_depth_colormap_transform_frame);
}

static void
gst_depth_colormap_init (GstDepthColormap * self)
{
  self->colormap = DEFAULT_COLORMAP;
  self->range = DEFAULT_RANGE;
  self->min_disparity = DEFAULT_MIN_DISPARITY;
  self->max_disparity = DEFAULT_MAX_DISPARITY;
  self->input = DEFAULT_INPUT;
  self->min_depth = DEFAULT_MIN_DEPTH;
  self->max_depth = DEFAULT_MAX_DEPTH;
  self->smoothing = DEFAULT_SMOOTHING;
}
