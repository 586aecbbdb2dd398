/* stereodepth's per-frame statistics (see gststereodepthstats.h). */
#include "gststereodepthstats.h"

void
gst_stereo_depth_stats_post (GstStereoDepth * self, const SdPlane * out,
    const GstStereoDepthPending * pair, GstClockTime elapsed)
{
  const gboolean depth = pair->output == SD_OUTPUT_DEPTH;
  guint64 valid = 0;
  guint lo = G_MAXUINT16, hi = 0;
  GstStructure *s;

  for (gint y = 0; y < out->height; y++) {
    const guint16 *row = (const guint16 *) ((const guint8 *) out->data +
        (gsize) y * out->stride);
    for (gint x = 0; x < out->width; x++) {
      const guint v = row[x];
      if (!v)
        continue;
      valid++;
      lo = MIN (lo, v);
      hi = MAX (hi, v);
    }
  }
  if (!valid)
    lo = 0;
  /* disparity values are 16 d; depth values are millimetres */
  s = gst_structure_new ("stereodepth-statistics",
      "timestamp", G_TYPE_UINT64, GST_BUFFER_PTS (pair->out),
      "running-time", G_TYPE_UINT64, pair->running_time,
      "valid-share", G_TYPE_DOUBLE,
      (gdouble) valid / ((gdouble) out->width * out->height),
      "unit", G_TYPE_STRING, depth ? "millimetres" : "pixels",
      "min", G_TYPE_DOUBLE, depth ? (gdouble) lo : lo / 16.0,
      "max", G_TYPE_DOUBLE, depth ? (gdouble) hi : hi / 16.0,
      "process-time", G_TYPE_UINT64, elapsed,
      "search-min", G_TYPE_INT, pair->search_min,
      "search-max", G_TYPE_INT, pair->search_max, NULL);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}
