/* depthtemporal: steadies a stereodepth stream over time, in place
 * (GstVideoFilter; the filter itself is common/sd-temporal.h). */
#ifndef __GST_DEPTH_TEMPORAL_H__
#define __GST_DEPTH_TEMPORAL_H__

#include <gst/video/gstvideofilter.h>
#include <gst/video/video.h>

#include "sd-temporal.h"

G_BEGIN_DECLS

#define GST_TYPE_DEPTH_TEMPORAL (gst_depth_temporal_get_type ())
G_DECLARE_FINAL_TYPE (GstDepthTemporal, gst_depth_temporal, GST,
    DEPTH_TEMPORAL, GstVideoFilter);

struct _GstDepthTemporal
{
  GstVideoFilter parent;

  /* Protected by the object lock (properties). */
  gdouble alpha;
  guint delta;
  guint persistence;

  /* Streaming thread only (flush-stop, a serialized event, comes in
   * it; stop and finalize after it). */
  SdTemporal history;
};

GST_ELEMENT_REGISTER_DECLARE (depthtemporal);

G_END_DECLS

#endif
