/* depthcolormap: colours a stereodepth disparity stream for people to look
 * at (GstVideoFilter). */
#ifndef __GST_DEPTH_COLORMAP_H__
#define __GST_DEPTH_COLORMAP_H__

#include <gst/video/gstvideofilter.h>
#include <gst/video/video.h>

#include "sd-colormap.h"

G_BEGIN_DECLS

#define GST_TYPE_DEPTH_COLORMAP (gst_depth_colormap_get_type ())
G_DECLARE_FINAL_TYPE (GstDepthColormap, gst_depth_colormap, GST,
    DEPTH_COLORMAP, GstVideoFilter);

/* What the GRAY16 input holds (stereodepth's output property). */
typedef enum
{
  GST_DEPTH_COLORMAP_INPUT_DISPARITY,   /* 16 * d: large is near */
  GST_DEPTH_COLORMAP_INPUT_DEPTH,       /* millimetres: small is near */
} GstDepthColormapInput;

typedef enum
{
  GST_DEPTH_COLORMAP_RANGE_AUTO,
  GST_DEPTH_COLORMAP_RANGE_FIXED,
} GstDepthColormapRange;

struct _GstDepthColormap
{
  GstVideoFilter parent;

  /* Protected by the object lock (properties). */
  SdColormap colormap;
  GstDepthColormapInput input;
  GstDepthColormapRange range;
  gdouble min_disparity;
  gdouble max_disparity;
  gdouble min_depth;
  gdouble max_depth;
  gdouble smoothing;

  /* Streaming thread only: the smoothed automatic range, in input units
   * (1/16 pixel or millimetres). */
  gboolean have_auto_range;
  gdouble auto_lo;
  gdouble auto_hi;

  /* Streaming thread only: every input value's output pixel, in the
   * negotiated format's byte order, for the format, map, input and range
   * it was made for (a division a value rather than a pixel). */
  guint32 *pixel_of;
  GstVideoFormat pixel_format;
  SdColormap pixel_map;
  gboolean pixel_depth;
  gint pixel_lo, pixel_hi;
};

GST_ELEMENT_REGISTER_DECLARE (depthcolormap);

G_END_DECLS

#endif
