/* The starvation watch of stereodepth: notices an input that stopped
 * delivering frames while the other goes on, warns, and keeps the other
 * input flowing (its frames dropped and counted) until the silent one comes
 * back.  Without it a camera that stops (no buffers, no EOS) stalls the
 * whole pipeline silently: the aggregator waits for a partner forever and
 * the other input's upstream blocks on the full pad. */
#ifndef __GST_STEREO_DEPTH_WATCH_H__
#define __GST_STEREO_DEPTH_WATCH_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct _GstStereoDepth GstStereoDepth;

/* Protected by lock. */
typedef struct
{
  GMutex lock;
  GCond cond;
  GThread *thread;
  gboolean running;
  gboolean idle;                /* the thread sleeps without a deadline */
  gboolean recheck;             /* a setting changed since the thread read it */
  gint64 arrival[2];            /* monotonic time (us) of each input's last frame */
  gint64 consumed[2];           /* ... of the last frame the aggregator took out */
  gboolean silent[2];           /* declared silent, not back yet */
  gboolean ended[2];            /* EOS entered the pad (and no flush since) */
  guint64 dropped[2];           /* frames of input i dropped while the other was silent */
  GstClockTime frame_duration;  /* of the left input, for the live default */
  gboolean single_input;        /* both views come in the left input */
} GstStereoDepthWatch;

/* Input indices: the order of the element's sink pads. */
enum
{ GST_STEREO_DEPTH_LEFT, GST_STEREO_DEPTH_RIGHT };

/* Once, from instance init, after the sink pads exist: the buffer probes. */
void gst_stereo_depth_watch_init (GstStereoDepth * self);
/* From finalize. */
void gst_stereo_depth_watch_clear (GstStereoDepth * self);
/* Starts (READY to PAUSED) and stops (PAUSED to READY) the thread. */
void gst_stereo_depth_watch_start (GstStereoDepth * self);
void gst_stereo_depth_watch_stop (GstStereoDepth * self);
/* Counts the silence from now: an input that was paused with the pipeline
 * did not stop (PAUSED to PLAYING). */
void gst_stereo_depth_watch_restart (GstStereoDepth * self);
/* The left input's frame duration (GST_CLOCK_TIME_NONE when unknown). */
void gst_stereo_depth_watch_set_frame_duration (GstStereoDepth * self,
    GstClockTime duration);
/* Both views come in the left input (or no longer do): with one input
 * there is no other to starve, and the watch keeps quiet. */
void gst_stereo_depth_watch_set_single_input (GstStereoDepth * self,
    gboolean single);
/* The timeout property changed: the thread recomputes its deadline. */
void gst_stereo_depth_watch_wake (GstStereoDepth * self);

G_END_DECLS

#endif
