/* stereodepth's per-frame statistics: with statistics=true, an element
 * message for each output frame (see docs/element.md, Statistics). */
#ifndef __GST_STEREO_DEPTH_STATS_H__
#define __GST_STEREO_DEPTH_STATS_H__

#include "gststereodepth.h"

G_BEGIN_DECLS

/* Posts the message of the output frame out (the engine's GRAY16 values,
 * disparity or depth as the pair's output says) of pair, which took
 * elapsed in the engine. */
void gst_stereo_depth_stats_post (GstStereoDepth * self, const SdPlane * out,
    const GstStereoDepthPending * pair, GstClockTime elapsed);

G_END_DECLS

#endif
