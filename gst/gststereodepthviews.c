/* The two views of stereodepth's input (see gststereodepthviews.h). */
#include "gststereodepthviews.h"

#include "gstsdenums.h"

static const SdEnumEntry input_layout_entries[] = {
  {"auto", GST_STEREO_DEPTH_INPUT_LAYOUT_AUTO,
      "from the caps: both views in each frame when their multiview-mode "
        "is side-by-side or top-bottom, else one view a frame"},
  {"separate", GST_STEREO_DEPTH_INPUT_LAYOUT_SEPARATE,
      "one view a frame, whatever the caps say"},
  {"side-by-side", GST_STEREO_DEPTH_INPUT_LAYOUT_SIDE_BY_SIDE,
      "both views in each frame, the left view on the left"},
  {"top-bottom", GST_STEREO_DEPTH_INPUT_LAYOUT_TOP_BOTTOM,
      "both views in each frame, the left view on top"},
  {NULL, 0, NULL}
};

GType
gst_stereo_depth_input_layout_get_type (void)
{
  return gst_sd_enum_type ("GstStereoDepthInputLayout", input_layout_entries);
}

gboolean
gst_stereo_depth_views_from_info (GstStereoDepthInputLayout layout,
    const GstVideoInfo * info, GstStereoDepthViews * views, gchar ** why)
{
  const GstVideoMultiviewMode mode = GST_VIDEO_INFO_MULTIVIEW_MODE (info);
  const GstVideoMultiviewFlags flags = GST_VIDEO_INFO_MULTIVIEW_FLAGS (info);

  views->packing = GST_VIDEO_MULTIVIEW_MODE_NONE;
  views->right_first = FALSE;
  views->half_aspect = FALSE;
  switch (layout) {
    case GST_STEREO_DEPTH_INPUT_LAYOUT_SEPARATE:
      return TRUE;
    case GST_STEREO_DEPTH_INPUT_LAYOUT_SIDE_BY_SIDE:
      views->packing = GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE;
      break;
    case GST_STEREO_DEPTH_INPUT_LAYOUT_TOP_BOTTOM:
      views->packing = GST_VIDEO_MULTIVIEW_MODE_TOP_BOTTOM;
      break;
    case GST_STEREO_DEPTH_INPUT_LAYOUT_AUTO:
      switch (mode) {
        case GST_VIDEO_MULTIVIEW_MODE_NONE:
        case GST_VIDEO_MULTIVIEW_MODE_MONO:
        case GST_VIDEO_MULTIVIEW_MODE_LEFT:
        case GST_VIDEO_MULTIVIEW_MODE_RIGHT:
          return TRUE;
        case GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE:
        case GST_VIDEO_MULTIVIEW_MODE_TOP_BOTTOM:
          views->packing = mode;
          break;
        default:
          *why = g_strdup_printf ("Frames of multiview-mode %s are not "
              "supported: side-by-side and top-bottom frames are, or one "
              "view a frame.", gst_video_multiview_mode_to_caps_string (mode));
          return FALSE;
      }
      break;
  }
  /* the caps' flags still say which view comes first, when they say it */
  views->right_first = (flags & GST_VIDEO_MULTIVIEW_FLAGS_RIGHT_VIEW_FIRST)
      != 0;
  views->half_aspect = (flags & GST_VIDEO_MULTIVIEW_FLAGS_HALF_ASPECT) != 0;
  if ((views->packing == GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE &&
          GST_VIDEO_INFO_WIDTH (info) % 2) ||
      (views->packing == GST_VIDEO_MULTIVIEW_MODE_TOP_BOTTOM &&
          GST_VIDEO_INFO_HEIGHT (info) % 2)) {
    *why = g_strdup_printf ("%dx%d frames cannot hold two %s views of one "
        "size: the %s must be even.",
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        gst_video_multiview_mode_to_caps_string (views->packing),
        views->packing == GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE ?
        "width" : "height");
    return FALSE;
  }
  return TRUE;
}

void
gst_stereo_depth_views_view_info (const GstStereoDepthViews * views,
    const GstVideoInfo * info, gint * width, gint * height, gint * par_n,
    gint * par_d)
{
  const gboolean sbs = views->packing == GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE;
  const gboolean tb = views->packing == GST_VIDEO_MULTIVIEW_MODE_TOP_BOTTOM;

  *width = GST_VIDEO_INFO_WIDTH (info) / (sbs ? 2 : 1);
  *height = GST_VIDEO_INFO_HEIGHT (info) / (tb ? 2 : 1);
  /* a squeezed view's pixels are twice as wide (or tall) as the frame's */
  *par_n = GST_VIDEO_INFO_PAR_N (info) * (sbs && views->half_aspect ? 2 : 1);
  *par_d = GST_VIDEO_INFO_PAR_D (info) * (tb && views->half_aspect ? 2 : 1);
}

void
gst_stereo_depth_views_split (const GstStereoDepthViews * views,
    const SdPlane * frame, SdPlane * left, SdPlane * right)
{
  SdPlane first = *frame, second = *frame;

  if (views->packing == GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE) {
    first.width = second.width = frame->width / 2;
    second.data = (uint8_t *) frame->data + (size_t) first.width *
        sd_pixel_layout (frame->format)->bytes_per_pixel;
  } else {
    first.height = second.height = frame->height / 2;
    second.data = (uint8_t *) frame->data + (size_t) first.height *
        frame->stride;
  }
  *left = views->right_first ? second : first;
  *right = views->right_first ? first : second;
}
