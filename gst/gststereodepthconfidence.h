/* stereodepth's src_confidence pad: a request pad that carries the engine's
 * per-pixel confidence of each disparity frame (GRAY8, the disparity's size
 * and timestamps; common/sd-confidence.h says what the values mean).  The
 * confidence is computed only while the pad exists.  The pad's stream
 * follows the src pad's: the same segment, flushes, gaps, tags and EOS,
 * with GRAY8 caps and a stream-id of its own. */
#ifndef __GST_STEREO_DEPTH_CONFIDENCE_H__
#define __GST_STEREO_DEPTH_CONFIDENCE_H__

#include <gst/base/gstaggregator.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

typedef struct _GstStereoDepth GstStereoDepth;

/* Protected by the element's object lock. */
typedef struct
{
  GstPad *pad;                  /* NULL while not requested */
  gboolean synced;              /* pad has had the src pad's sticky events */
  guint32 seek_seqnum;          /* of the last seek (0: none) */
} GstStereoDepthConfidence;

/* One pair's confidence on its way out. */
typedef struct
{
  GstPad *pad;
  GstBuffer *buffer;
  GstVideoFrame frame;          /* buffer, mapped for the engine to write */
} GstStereoDepthConfidenceOut;

/* From class init: the pad template, the request and release functions
 * for it, and the handler of seeks, which come up both src pads. */
void gst_stereo_depth_confidence_class_init (GstAggregatorClass * klass);
/* From instance init, after the src pad exists: follows its events. */
void gst_stereo_depth_confidence_init (GstStereoDepth * self);

/* Whether the pairs submitted now are to have a confidence: the pad
 * exists.  Call with the object lock held. */
gboolean gst_stereo_depth_confidence_wanted (GstStereoDepth * self);

/* Prepares out for the pair whose disparity frame is disparity: a GRAY8
 * frame of its size with its timestamps, mapped.  FALSE when the pad no
 * longer exists (nothing to do). */
gboolean gst_stereo_depth_confidence_begin (GstStereoDepth * self,
    const GstVideoFrame * disparity, GstStereoDepthConfidenceOut * out);
/* Unmaps out's frame and pushes it when the disparity frame went out
 * (disparity, the flow of its push, is GST_FLOW_OK), else drops it.
 * Returns the flow that is to stop the stream: disparity, or a fatal
 * error of the confidence push (not-linked, flushing and EOS of the
 * confidence branch leave the disparity stream running). */
GstFlowReturn gst_stereo_depth_confidence_finish (GstStereoDepth * self,
    GstStereoDepthConfidenceOut * out, GstFlowReturn disparity);

G_END_DECLS

#endif
