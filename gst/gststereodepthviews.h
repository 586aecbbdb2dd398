/* Where stereodepth finds its two views: one per input (separate), or both
 * in the frames of the left input, side by side or one above the other
 * (GstVideoMultiviewMode in its caps, or the input-layout property).  The
 * views of a packed frame are views of its memory, not copies.
 * stereorectify reads its one input's frames the same way. */
#ifndef __GST_STEREO_DEPTH_VIEWS_H__
#define __GST_STEREO_DEPTH_VIEWS_H__

#include <gst/video/video.h>

#include "sd-image.h"

G_BEGIN_DECLS

/* The input-layout property. */
typedef enum
{
  GST_STEREO_DEPTH_INPUT_LAYOUT_AUTO,
  GST_STEREO_DEPTH_INPUT_LAYOUT_SEPARATE,
  GST_STEREO_DEPTH_INPUT_LAYOUT_SIDE_BY_SIDE,
  GST_STEREO_DEPTH_INPUT_LAYOUT_TOP_BOTTOM,
} GstStereoDepthInputLayout;

GType gst_stereo_depth_input_layout_get_type (void);
#define GST_TYPE_STEREO_DEPTH_INPUT_LAYOUT \
    (gst_stereo_depth_input_layout_get_type ())

/* What the left input's frames hold. */
typedef struct
{
  /* SIDE_BY_SIDE or TOP_BOTTOM: both views; anything else (NONE, or the
   * zeroed MONO): one, the right input has the other */
  GstVideoMultiviewMode packing;
  gboolean right_first;         /* the first half is the right view */
  gboolean half_aspect;         /* each view squeezed to half its width or height */
} GstStereoDepthViews;

/* The views of frames with caps info under the property; FALSE, with a
 * sentence in *why (g_free it), for a packing the element cannot read. */
gboolean gst_stereo_depth_views_from_info (GstStereoDepthInputLayout layout,
    const GstVideoInfo * info, GstStereoDepthViews * views, gchar ** why);

static inline gboolean
gst_stereo_depth_views_packed (const GstStereoDepthViews * views)
{
  return views->packing == GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE
      || views->packing == GST_VIDEO_MULTIVIEW_MODE_TOP_BOTTOM;
}

/* The size and pixel aspect ratio of one view of frames with caps info. */
void gst_stereo_depth_views_view_info (const GstStereoDepthViews * views,
    const GstVideoInfo * info, gint * width, gint * height, gint * par_n,
    gint * par_d);

/* The left and right views of a packed frame's plane. */
void gst_stereo_depth_views_split (const GstStereoDepthViews * views,
    const SdPlane * frame, SdPlane * left, SdPlane * right);

G_END_DECLS

#endif
