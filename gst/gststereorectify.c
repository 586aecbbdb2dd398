/**
 * SECTION:element-stereorectify
 * @title: stereorectify
 *
 * Undistorts and rectifies one view of a calibrated stereo rig, in the
 * stream's own format (grey, RGB or YUV, of 8 bits a sample or up to 16),
 * from the calibration file stereodepth reads: OpenCV's stereoCalibrate +
 * stereoRectify output, or a pair of ROS camera_info files.  It runs the
 * maps and the remap of stereodepth's calibration stage, so its left view
 * lines up pixel for pixel with the disparity (or depth) that stereodepth
 * computes from the same rig with calibration set: what a colour image,
 * an overlay or a coloured point cloud of that depth needs.  The luma of
 * a YUV view (and a GRAY8 view) has the very bits stereodepth matches;
 * subsampled chroma is read where the luma it covers is.
 *
 * A stereo camera that sends both views in one frame, side by side or one
 * above the other, goes in as it is: #GstStereoRectify:input-layout (or
 * the multiview-mode caps) says so, #GstStereoRectify:view picks the view,
 * and the output is that view's size.
 *
 * stereodepth's align-rows moves the right view only, and never its
 * output's geometry: the left view of stereorectify stays aligned with the
 * disparity whatever align-rows measures.
 *
 * Frames in CUDA memory (a GPU decoder's, cudaupload's) are remapped on
 * the GPU where they lie, in the CUDA context the element shares with its
 * neighbours, and go on in CUDA memory; others are remapped on the CPU,
 * rows over the processor's cores, samples in vectors.  Both give the same
 * bits.
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
 * |[
 * gst-launch-1.0 filesrc location=left.mp4 ! qtdemux ! h264parse ! nvh264dec ! \
 *   stereorectify calibration=rig.yaml ! nvh264enc ! h264parse ! \
 *   mp4mux ! filesink location=left-rectified.mp4
 * ]|
 * |[
 * gst-launch-1.0 v4l2src ! video/x-raw,width=1280,height=480 ! tee name=cam \
 *   cam. ! queue ! stereorectify input-layout=side-by-side calibration=rig.yaml ! \
 *     videoconvert ! autovideosink \
 *   cam. ! queue ! stereodepth input-layout=side-by-side calibration=rig.yaml ! \
 *     depthcolormap ! videoconvert ! autovideosink
 * ]|
 */
#include "gststereorectify.h"

#include "gststereorectifycuda.h"
#include "gstsdcalib.h"
#include "gstsdenums.h"
#include "fast/sd-fast.h"

GST_DEBUG_CATEGORY (gst_stereo_rectify_debug);
#define GST_CAT_DEFAULT gst_stereo_rectify_debug

/* The formats whose every sample is one byte, or one 16-bit word in the
 * machine's order, at a place GstVideoFormatInfo gives (plane, offset,
 * pixel stride, subsampling, and the value's bits in the word): planar and
 * packed alike, stereodepth's input formats among them.  Others (big
 * endian words, v210...) go through videoconvert. */
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
#define FORMATS_16 ", GRAY16_LE, P010_10LE, P012_LE, P016_LE, I420_10LE, " \
    "I420_12LE, I422_10LE, I422_12LE, Y444_10LE, Y444_12LE, Y444_16LE"
#else
#define FORMATS_16 ""
#endif
#define FORMATS "{ GRAY8, I420, YV12, Y41B, Y42B, Y444, A420, NV12, NV21, " \
    "NV16, NV61, NV24, YUY2, YVYU, UYVY, AYUV, VUYA, RGB, BGR, RGBx, BGRx, " \
    "xRGB, xBGR, RGBA, BGRA, ARGB, ABGR, GBR, GBRA" FORMATS_16 " }"

/* Frames in CUDA memory stay there (gststereorectifycuda.h); listed
 * first, so that a neighbour that has them keeps them there. */
#ifdef HAVE_GST_CUDA
#define CAPS GST_VIDEO_CAPS_MAKE_WITH_FEATURES ("memory:CUDAMemory", \
    GST_STEREO_RECTIFY_CUDA_FORMATS) "; " GST_VIDEO_CAPS_MAKE (FORMATS)
#else
#define CAPS GST_VIDEO_CAPS_MAKE (FORMATS)
#endif

static GstStaticPadTemplate sink_template =
GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (CAPS));

static GstStaticPadTemplate src_template =
GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (CAPS));

enum
{
  PROP_0,
  PROP_CALIBRATION,
  PROP_CALIBRATION_RIGHT,
  PROP_VIEW,
  PROP_INPUT_LAYOUT,
};

#define DEFAULT_VIEW GST_STEREO_RECTIFY_VIEW_LEFT
#define DEFAULT_INPUT_LAYOUT GST_STEREO_DEPTH_INPUT_LAYOUT_AUTO

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
    case PROP_INPUT_LAYOUT:
      self->input_layout = g_value_get_enum (value);
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
    case PROP_INPUT_LAYOUT:
      g_value_set_enum (value, self->input_layout);
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
  gst_stereo_rectify_cuda_clear_maps (self);
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
  gst_stereo_rectify_cuda_reset (self);
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

/* One more part: the samples at offset of plane p's pixels, every
 * pixel_stride bytes on the grid of subsampling sub_x, sub_y, their
 * values depth bits from bit shift.  FALSE when out of memory. */
static gboolean
add_part (GstStereoRectify * self, const gint32 * view_map, gint p,
    gint offset, gint pixel_stride, gint depth, gint shift, gint sub_x,
    gint sub_y)
{
  GstStereoRectifyPart *part;

  /* the pad template's formats have at most 4 parts */
  g_return_val_if_fail (self->n_parts < GST_STEREO_RECTIFY_MAX_PARTS, FALSE);
  part = &self->parts[self->n_parts++];
  part->plane = p;
  part->offset = offset;
  part->pixel_stride = pixel_stride;
  part->depth = depth;
  part->shift = shift;
  part->sub_x = sub_x;
  part->sub_y = sub_y;
  part->map = part_map (self, view_map, sub_x, sub_y, &part->width,
      &part->height);
  return part->map != NULL;
}

/* Where component c's samples start in each pixel of its plane, in bytes.
 * Words lie at even bytes: GStreamer 1.22 gives P010's V offset as 1 (a
 * word, not a byte), so a word's offset is its place among its plane's
 * components in the order of their offsets, which every version gets
 * right. */
static gint
sample_offset (const GstVideoFormatInfo * f, guint c)
{
  const guint p = GST_VIDEO_FORMAT_INFO_PLANE (f, c);
  gint before = 0;

  if (GST_VIDEO_FORMAT_INFO_DEPTH (f, c) <= 8)
    return GST_VIDEO_FORMAT_INFO_POFFSET (f, c);
  for (guint k = 0; k < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (f); k++)
    before += GST_VIDEO_FORMAT_INFO_PLANE (f, k) == p
        && GST_VIDEO_FORMAT_INFO_POFFSET (f, k) <
        GST_VIDEO_FORMAT_INFO_POFFSET (f, c);
  return 2 * before;
}

/* Every sample of the format, as parts: a plane's components, or, in a
 * packed plane of bytes whose components are not subsampled, every byte
 * of its pixels (the padding byte of RGBx too, so no byte goes out
 * unwritten).  FALSE when out of memory. */
static gboolean
plan_parts (GstStereoRectify * self, const GstVideoInfo * info,
    const gint32 * view_map)
{
  const GstVideoFormatInfo *f = info->finfo;
  const guint n = GST_VIDEO_FORMAT_INFO_N_COMPONENTS (f);
  gboolean ok = TRUE;
  guint c, p;

  self->n_parts = 0;
  for (p = 0; p < GST_VIDEO_FORMAT_INFO_N_PLANES (f); p++) {
    gint pstride = 0;
    gboolean whole = TRUE;

    for (c = 0; c < n; c++)
      if (GST_VIDEO_FORMAT_INFO_PLANE (f, c) == p) {
        pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (f, c);
        whole = whole && GST_VIDEO_FORMAT_INFO_DEPTH (f, c) == 8
            && !GST_VIDEO_FORMAT_INFO_W_SUB (f, c)
            && !GST_VIDEO_FORMAT_INFO_H_SUB (f, c);
      }
    if (whole) {
      for (gint k = 0; k < pstride; k++)
        ok = ok && add_part (self, view_map, p, k, pstride, 8, 0, 0, 0);
      continue;
    }
    for (c = 0; c < n; c++)
      if (GST_VIDEO_FORMAT_INFO_PLANE (f, c) == p)
        ok = ok && add_part (self, view_map, p, sample_offset (f, c),
            GST_VIDEO_FORMAT_INFO_PSTRIDE (f, c),
            GST_VIDEO_FORMAT_INFO_DEPTH (f, c),
            GST_VIDEO_FORMAT_INFO_SHIFT (f, c),
            GST_VIDEO_FORMAT_INFO_W_SUB (f, c),
            GST_VIDEO_FORMAT_INFO_H_SUB (f, c));
  }
  return ok;
}

/* A width or height (an int or a range) times num / den. */
static void
scale_dimension (GstStructure * s, const gchar * field, gint num, gint den)
{
  const GValue *v = gst_structure_get_value (s, field);
  gint64 lo, hi;

  if (v && G_VALUE_HOLDS_INT (v)) {
    gst_structure_set (s, field, G_TYPE_INT, (gint) MIN ((gint64)
            g_value_get_int (v) * num / den, G_MAXINT), NULL);
  } else if (v && GST_VALUE_HOLDS_INT_RANGE (v)) {
    lo = MAX ((gint64) gst_value_get_int_range_min (v) * num / den, 1);
    hi = MIN ((gint64) gst_value_get_int_range_max (v) * num / den,
        G_MAXINT);
    if (lo < hi)
      gst_structure_set (s, field, GST_TYPE_INT_RANGE, (gint) lo, (gint) hi,
          NULL);
    else
      gst_structure_set (s, field, G_TYPE_INT, (gint) lo, NULL);
  }
}

/* The packing frames of caps structure s have under layout: SIDE_BY_SIDE,
 * TOP_BOTTOM, or NONE for one view a frame. */
static GstVideoMultiviewMode
structure_packing (GstStereoDepthInputLayout layout, const GstStructure * s)
{
  const gchar *mode = gst_structure_get_string (s, "multiview-mode");

  switch (layout) {
    case GST_STEREO_DEPTH_INPUT_LAYOUT_SIDE_BY_SIDE:
      return GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE;
    case GST_STEREO_DEPTH_INPUT_LAYOUT_TOP_BOTTOM:
      return GST_VIDEO_MULTIVIEW_MODE_TOP_BOTTOM;
    case GST_STEREO_DEPTH_INPUT_LAYOUT_AUTO:
      if (g_strcmp0 (mode, "side-by-side") == 0)
        return GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE;
      if (g_strcmp0 (mode, "top-bottom") == 0)
        return GST_VIDEO_MULTIVIEW_MODE_TOP_BOTTOM;
      return GST_VIDEO_MULTIVIEW_MODE_NONE;
    default:
      return GST_VIDEO_MULTIVIEW_MODE_NONE;
  }
}

/* A half-aspect packed frame squeezes each view to half its width (or
 * height): its pixels are twice as wide (or tall) as the frame's, as
 * stereodepth's output says too (gst_stereo_depth_views_view_info). */
static void
unsqueeze_par (GstStructure * s, GstVideoMultiviewMode packing)
{
  guint flags, mask;
  gint n = 1, d = 1;

  if (!gst_structure_get_flagset (s, "multiview-flags", &flags, &mask)
      || !(flags & mask & GST_VIDEO_MULTIVIEW_FLAGS_HALF_ASPECT))
    return;
  if (gst_structure_has_field (s, "pixel-aspect-ratio")
      && !gst_structure_get_fraction (s, "pixel-aspect-ratio", &n, &d))
    return;                     /* not fixed yet: left for fixation */
  if (packing == GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE)
    n *= 2;
  else
    d *= 2;
  gst_structure_set (s, "pixel-aspect-ratio", GST_TYPE_FRACTION, n, d, NULL);
}

/* Downstream gets one view: a side-by-side frame gives one of half its
 * width, a top-bottom frame one of half its height, without the packing in
 * its caps; a frame of one view is the view.  Upstream may give the view
 * as it is or, under input-layout auto, packed with the other. */
static GstCaps *
gst_stereo_rectify_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstStereoRectify *self = GST_STEREO_RECTIFY (trans);
  GstCaps *result = gst_caps_new_empty ();
  GstStereoDepthInputLayout layout;
  guint i;

  GST_OBJECT_LOCK (self);
  layout = self->input_layout;
  GST_OBJECT_UNLOCK (self);

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *in = gst_caps_get_structure (caps, i);
    GstCapsFeatures *features = gst_caps_get_features (caps, i);
    GstStructure *s = gst_structure_copy (in);

    if (direction == GST_PAD_SINK) {
      const GstVideoMultiviewMode packing = structure_packing (layout, in);

      if (packing != GST_VIDEO_MULTIVIEW_MODE_NONE) {
        scale_dimension (s, packing == GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE ?
            "width" : "height", 1, 2);
        unsqueeze_par (s, packing);
        gst_structure_remove_fields (s, "multiview-mode", "multiview-flags",
            NULL);
      }
      result = gst_caps_merge_structure_full (result, s,
          gst_caps_features_copy (features));
      continue;
    }
    /* upstream of a view */
    if (layout == GST_STEREO_DEPTH_INPUT_LAYOUT_SIDE_BY_SIDE
        || layout == GST_STEREO_DEPTH_INPUT_LAYOUT_TOP_BOTTOM) {
      scale_dimension (s, layout == GST_STEREO_DEPTH_INPUT_LAYOUT_SIDE_BY_SIDE
          ? "width" : "height", 2, 1);
      gst_structure_remove_fields (s, "multiview-mode", "multiview-flags",
          NULL);
    }
    gst_caps_append_structure_full (result, s,
        gst_caps_features_copy (features));
    if (layout == GST_STEREO_DEPTH_INPUT_LAYOUT_AUTO) {
      GstStructure *sbs = gst_structure_copy (in), *tb =
          gst_structure_copy (in);

      scale_dimension (sbs, "width", 2, 1);
      gst_structure_set (sbs, "multiview-mode", G_TYPE_STRING, "side-by-side",
          NULL);
      scale_dimension (tb, "height", 2, 1);
      gst_structure_set (tb, "multiview-mode", G_TYPE_STRING, "top-bottom",
          NULL);
      gst_caps_append_structure_full (result, sbs,
          gst_caps_features_copy (features));
      gst_caps_append_structure_full (result, tb,
          gst_caps_features_copy (features));
    }
  }
  if (filter) {
    GstCaps *both = gst_caps_intersect_full (filter, result,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (result);
    result = both;
  }
  return result;
}

/* Where the view the element gives starts in each part's plane of a packed
 * frame; FALSE after posting an error when a subsampled component's
 * samples cannot be split between the two views. */
static gboolean
place_view (GstStereoRectify * self, const GstVideoInfo * info,
    const GstStereoDepthViews * views)
{
  const gboolean packed = gst_stereo_depth_views_packed (views);
  const gboolean sbs = views->packing == GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE;
  const gboolean second = packed &&
      (self->view_used == GST_STEREO_RECTIFY_VIEW_RIGHT) != views->right_first;
  const gint w = self->rect->width, h = self->rect->height;

  for (gint i = 0; i < self->n_parts; i++) {
    GstStereoRectifyPart *part = &self->parts[i];

    if (packed && (sbs ? w % (1 << part->sub_x) : h % (1 << part->sub_y))) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("Two %s views of %dx%d %s cannot be told apart: they share "
              "chroma samples.  Use views of an even size, or convert the "
              "frames first.", gst_video_multiview_mode_to_caps_string
              (views->packing), w, h, GST_VIDEO_INFO_NAME (info)), (NULL));
      return FALSE;
    }
    part->view_x = second && sbs ? part->width * part->pixel_stride : 0;
    part->view_rows = second && !sbs ? part->height : 0;
  }
  return TRUE;
}

static gboolean
gst_stereo_rectify_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info,
    G_GNUC_UNUSED GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstStereoRectify *self = GST_STEREO_RECTIFY (filter);
  GstStereoDepthInputLayout layout;
  GstStereoDepthViews views;
  gint w, h, par_n, par_d;
  gchar *why = NULL;
  char msg[512];

  clear_maps (self);
  if (!gst_stereo_rectify_cuda_set_caps (self, incaps))
    return FALSE;
  GST_OBJECT_LOCK (self);
  layout = self->input_layout;
  GST_OBJECT_UNLOCK (self);
  if (!gst_stereo_depth_views_from_info (layout, in_info, &views, &why)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", why), (NULL));
    g_free (why);
    return FALSE;
  }
  gst_stereo_depth_views_view_info (&views, in_info, &w, &h, &par_n, &par_d);
  /* the caps transform gave downstream this size */
  g_return_val_if_fail (GST_VIDEO_INFO_WIDTH (out_info) == w
      && GST_VIDEO_INFO_HEIGHT (out_info) == h, FALSE);
  self->rect = sd_rectification_new (self->calib, w, h, msg, sizeof (msg));
  if (!self->rect) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", msg), (NULL));
    return FALSE;
  }
  if (!plan_parts (self, out_info, self->rect->map[self->view_used])) {
    clear_maps (self);
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Not enough memory for the maps of %dx%d %s frames.", w, h,
            GST_VIDEO_INFO_NAME (out_info)), (NULL));
    return FALSE;
  }
  if (!place_view (self, out_info, &views)) {
    clear_maps (self);
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "%s view of %dx%d %s (%s): %d parts",
      view_entries[self->view_used].nick, w, h, GST_VIDEO_INFO_NAME (in_info),
      gst_stereo_depth_views_packed (&views) ?
      gst_video_multiview_mode_to_caps_string (views.packing) : "one view",
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
    const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (in, part->plane);
    const guint8 *src = gst_stereo_rectify_part_src (part, in);
    guint8 *dst = gst_stereo_rectify_part_dst (part, out);
    const gint dst_stride = GST_VIDEO_FRAME_PLANE_STRIDE (out, part->plane);

    if (part->depth > 8)
      sd_fast_rectify_component16 (NULL, part->map, (const guint16 *)
          (gconstpointer) src, stride, (guint16 *) (gpointer) dst,
          dst_stride, part->pixel_stride / 2, part->depth, part->shift,
          part->width, part->height);
    else
      sd_fast_rectify_component (NULL, part->map, src, stride, dst,
          dst_stride, part->pixel_stride, part->width, part->height);
  }
  return GST_FLOW_OK;
}

/* Frames in CUDA memory of the element's context are remapped where they
 * lie; the video filter maps the others for the host. */
static GstFlowReturn
gst_stereo_rectify_transform (GstBaseTransform * trans, GstBuffer * in,
    GstBuffer * out)
{
  GstFlowReturn ret;

  if (gst_stereo_rectify_cuda_transform (GST_STEREO_RECTIFY (trans), in, out,
          &ret))
    return ret;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->transform (trans, in, out);
}

static gboolean
gst_stereo_rectify_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  /* a CUDA pool goes first in the query; the video filter then asks it
   * for video meta and the base class takes it */
  gst_stereo_rectify_cuda_decide_allocation (GST_STEREO_RECTIFY (trans),
      query);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

static gboolean
gst_stereo_rectify_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  return (decide_query
      && gst_stereo_rectify_cuda_propose_allocation (GST_STEREO_RECTIFY
          (trans), query))
      || GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
      decide_query, query);
}

static gboolean
gst_stereo_rectify_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  return gst_stereo_rectify_cuda_query (GST_STEREO_RECTIFY (trans), query)
      || GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

static void
gst_stereo_rectify_set_context (GstElement * element, GstContext * context)
{
  gst_stereo_rectify_cuda_set_context (GST_STEREO_RECTIFY (element), context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
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
          "Which camera's view to give: the stream's, or one of the two its "
          "frames hold (input-layout)", view_type, DEFAULT_VIEW, flags));
  g_object_class_install_property (gobject_class, PROP_INPUT_LAYOUT,
      g_param_spec_enum ("input-layout", "Input layout",
          "Whether each frame holds one view or both (a side-by-side or "
          "top-bottom stereo camera, as stereodepth's input-layout); auto "
          "follows the multiview-mode caps, whose multiview-flags say which "
          "view comes first", GST_TYPE_STEREO_DEPTH_INPUT_LAYOUT,
          DEFAULT_INPUT_LAYOUT, flags));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Stereo view rectification", "Filter/Effect/Video",
      "Undistorts and rectifies one view of a calibrated stereo rig in its "
      "own format, aligned pixel for pixel with stereodepth's output of "
      "that rig", "stereodepth developers");

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_stereo_rectify_transform_caps);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_stereo_rectify_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_stereo_rectify_stop);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_stereo_rectify_transform);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_stereo_rectify_decide_allocation);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_stereo_rectify_propose_allocation);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_stereo_rectify_query);
  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_stereo_rectify_set_context);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_stereo_rectify_set_info);
  filter_class->transform_frame =
      GST_DEBUG_FUNCPTR (gst_stereo_rectify_transform_frame);
}

static void
gst_stereo_rectify_init (GstStereoRectify * self)
{
  self->view = DEFAULT_VIEW;
  self->input_layout = DEFAULT_INPUT_LAYOUT;
}
