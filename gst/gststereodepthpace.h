/* Live pacing of stereodepth.  With live sources each output is due one
 * pipeline latency after its pair's running time.  The latency the element
 * reports covers the pairing of the two inputs and, once pairs have been
 * computed, the time a pair takes; a pair that can no longer be computed by
 * its deadline is skipped (counted in pairs-late, with a QoS message) rather
 * than computed late.  So a backend slower than the cameras (the CPU at
 * large sizes) shows the newest pairs on time, at the rate it manages,
 * instead of every pair later and later until the sink drops them all.
 * Without live sources the same holds once a sink that syncs to the clock
 * has sent a QoS event (a file played to a screen); otherwise (a recording)
 * every pair is computed. */
#ifndef __GST_STEREO_DEPTH_PACE_H__
#define __GST_STEREO_DEPTH_PACE_H__

#include <gst/base/gstaggregator.h>

G_BEGIN_DECLS

typedef struct _GstStereoDepth GstStereoDepth;

/* Pairs whose compute times the reported latency covers: about 2 s at
 * 30/1.  With 16, the occasional 11 ms pair among 3 to 4 ms ones (CUDA at
 * 1080p) left the window and came back every second or so, and the latency
 * went down and up again with it, ten LATENCY messages in 5 s. */
#define GST_STEREO_DEPTH_PACE_WINDOW 64

/* Touched by the streaming thread only (aggregate() and the serialized
 * events) but where said; the count of late pairs is the element's, under
 * its lock. */
typedef struct
{
  GstClockTime pairing;         /* latency for pairing the inputs */
  GstClockTime compute;         /* latency reported for computing a pair */
  GstClockTime typical;         /* 90th percentile of the recent times */
  /* the pipeline's latency from the sinks' LATENCY event (none yet:
   * GST_CLOCK_TIME_NONE); under the object lock, as that event comes in
   * another thread */
  GstClockTime pipeline_latency;
  /* a QoS event has come from downstream since the start or the last
   * flush: a sink syncs to the clock; under the object lock */
  gboolean downstream_syncs;
  GstClockTime recent[GST_STEREO_DEPTH_PACE_WINDOW];    /* compute times */
  guint n_recent;
  guint next;                   /* where the next compute time goes */
  gboolean first;               /* the next pair is a new engine's first */
} GstStereoDepthPace;

/* From start: no compute time known, latency as for pairing alone. */
void gst_stereo_depth_pace_reset (GstStereoDepth * self);
/* The latency the pairing needs (new caps, pairs in flight): reported with
 * the compute allowance on top. */
void gst_stereo_depth_pace_set_pairing (GstStereoDepth * self,
    GstClockTime pairing);
/* A new engine: its first pair pays for allocations and module loading
 * (164 ms at 4K on CUDA, then 23 ms a pair): the latency covers it, but it
 * stays out of the recent times. */
void gst_stereo_depth_pace_new_engine (GstStereoDepth * self);
/* A flush: the sinks have yet to say again whether they sync (they send
 * QoS once they render in the new segment). */
void gst_stereo_depth_pace_flush (GstStereoDepth * self);
/* A pair took elapsed in the engine.  When live, the compute allowance
 * follows the slowest of the recent pairs (a quarter on top, whole
 * milliseconds): raised at once, lowered once it is less than half; the
 * late test takes their 90th percentile. */
void gst_stereo_depth_pace_note (GstStereoDepth * self, GstClockTime elapsed);
/* Once, from instance init, after the src pad exists: a probe reads the
 * sinks' LATENCY event going upstream, the pipeline's latency, and so when
 * the sinks render an output. */
void gst_stereo_depth_pace_init (GstStereoDepth * self);
/* Whether the pair at running_time (its left frame buf, of pad) can no
 * longer be computed by its deadline, when live or when a sink syncs; such
 * a pair is counted in pairs-late and a QoS message says so.  The caller
 * drops its frames. */
gboolean gst_stereo_depth_pace_late (GstStereoDepth * self,
    GstAggregatorPad * pad, GstBuffer * buf, GstClockTime running_time);

G_END_DECLS

#endif
