/* Live pacing of stereodepth (see gststereodepthpace.h).
 *
 * The deadline of a pair is its running time plus the pipeline's latency,
 * which the sinks send upstream in a LATENCY event (before that, the
 * aggregator's: upstream's and ours): later, its output reaches the sink
 * late, and a video sink drops it.  The pipeline's, not ours alone: a sink
 * adds its processing deadline (20 ms by default).  A pair started at
 * clock time now is ready about a compute time later, so it is late when
 * that passes its deadline.  Computing such a pair would only make the
 * next one late too; skipping it lets the element catch up to the newest
 * pair.
 *
 * Which compute time: with a sink that syncs, the push of each output
 * returns at its render time, so the next pair starts one frame before its
 * own deadline, whatever the latency: a pair is skipped when the estimate
 * exceeds one frame.  The slowest recent time (the latency's allowance)
 * skipped every other pair at 4K on CUDA while the first pair's 130 ms
 * stayed in the window, against 23 ms a pair after it (a new engine's
 * first pair is no longer in the window); the median let the
 * sink drop 2 to 4 of 16 outputs whose pair took longer than that (the
 * reference backend on the GPU machine).  The 90th percentile ignores a
 * lone first pair and covers most of the spread.
 *
 * Without live sources (files played to a screen) the outputs are due at
 * their running time too, but only where a sink syncs to the clock, which
 * a recording does not: a sink that syncs says so with QoS events, sent
 * for every frame it renders or drops, with how early or late it came.  From the first of them the same
 * test applies (the latency then the lateness a video sink accepts), so
 * that a backend slower than the file shows the pairs it can finish on
 * time.  The QoS events
 * still go upstream, where decoders skip frames by them. */
#include "gststereodepth.h"

#include <stdlib.h>
#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (gst_stereo_depth_debug);
#define GST_CAT_DEFAULT gst_stereo_depth_debug

/* Without live sources, how late an output may reach a sink that syncs:
 * video sinks render what comes up to 20 ms late (GstVideoSink's
 * max-lateness).  With 0, a pair was computed only where it would be
 * early, and the wait for the next frame's time left the CPU backend idle
 * a fifth of the time (101 outputs in 10 s against 130, none dropped;
 * 1280x720 files at 30/1 on this 2-core machine, 73 ms a pair). */
#define GST_STEREO_DEPTH_PACE_SINK_LATENESS (20 * GST_MSECOND)

static void
report (GstStereoDepth * self)
{
  const GstClockTime latency = self->pace.pairing + self->pace.compute;

  GST_INFO_OBJECT (self, "latency %" GST_TIME_FORMAT " (pairing %"
      GST_TIME_FORMAT ", computing %" GST_TIME_FORMAT ")",
      GST_TIME_ARGS (latency), GST_TIME_ARGS (self->pace.pairing),
      GST_TIME_ARGS (self->pace.compute));
  gst_aggregator_set_latency (GST_AGGREGATOR (self), latency, latency);
}

void
gst_stereo_depth_pace_reset (GstStereoDepth * self)
{
  memset (&self->pace, 0, sizeof (self->pace));
  self->pace.pipeline_latency = GST_CLOCK_TIME_NONE;
}

static GstPadProbeReturn
downstream_probe (G_GNUC_UNUSED GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data)
{
  GstStereoDepth *self = user_data;
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
  GstClockTime latency;
  GstClockTimeDiff jitter;
  GstQOSType type;

  if (GST_EVENT_TYPE (event) == GST_EVENT_LATENCY) {
    gst_event_parse_latency (event, &latency);
    GST_OBJECT_LOCK (self);
    self->pace.pipeline_latency = latency;
    GST_OBJECT_UNLOCK (self);
  } else if (GST_EVENT_TYPE (event) == GST_EVENT_QOS) {
    gst_event_parse_qos (event, &type, NULL, &jitter, NULL);
    /* A sink that does not sync sends QoS too, with a jitter of exactly 0
     * (it waited on no clock); a throttling sink limits its rate and says
     * nothing of deadlines. */
    if (type != GST_QOS_TYPE_THROTTLE && jitter != 0) {
      GST_OBJECT_LOCK (self);
      self->pace.downstream_syncs = TRUE;
      GST_OBJECT_UNLOCK (self);
    }
  }
  return GST_PAD_PROBE_OK;
}

void
gst_stereo_depth_pace_init (GstStereoDepth * self)
{
  gst_stereo_depth_pace_reset (self);
  gst_pad_add_probe (GST_AGGREGATOR_SRC_PAD (self),
      GST_PAD_PROBE_TYPE_EVENT_UPSTREAM, downstream_probe, self, NULL);
}

void
gst_stereo_depth_pace_set_pairing (GstStereoDepth * self,
    GstClockTime pairing)
{
  self->pace.pairing = pairing;
  report (self);
}

static gint
compare_times (gconstpointer a, gconstpointer b)
{
  const GstClockTime x = *(const GstClockTime *) a;
  const GstClockTime y = *(const GstClockTime *) b;

  return x < y ? -1 : x > y;
}

static GstClockTime
percentile_90 (const GstClockTime * times, guint n)
{
  GstClockTime sorted[GST_STEREO_DEPTH_PACE_WINDOW];

  memcpy (sorted, times, n * sizeof (*times));
  qsort (sorted, n, sizeof (*sorted), compare_times);
  return sorted[(n - 1) * 9 / 10];
}

void
gst_stereo_depth_pace_new_engine (GstStereoDepth * self)
{
  self->pace.first = TRUE;
}

/* Reports wanted, a compute allowance, when it is above the reported one
 * or below half of it: each change is a latency message and a
 * redistribution in the pipeline, so up at once (late pairs otherwise),
 * down only by half. */
static void
allow (GstStereoDepth * self, GstClockTime elapsed)
{
  const GstClockTime wanted = GST_MSECOND *
      ((elapsed + elapsed / 4 + GST_MSECOND - 1) / GST_MSECOND);

  if (wanted > self->pace.compute || wanted < self->pace.compute / 2) {
    self->pace.compute = wanted;
    report (self);
  }
}

void
gst_stereo_depth_pace_note (GstStereoDepth * self, GstClockTime elapsed)
{
  GstStereoDepthPace *p = &self->pace;
  /* only a live element reports a latency: without live sources nothing
   * waits for the element's output to be late */
  const gboolean live =
      GST_CLOCK_TIME_IS_VALID (gst_aggregator_get_latency (GST_AGGREGATOR
          (self)));
  GstClockTime slowest = 0;
  guint i;

  /* a new engine's first pair: its output and the pairs that waited
   * behind it are covered, but it is no sample of the engine's pace (the
   * next pair lowers the allowance again) */
  if (p->first) {
    p->first = FALSE;
    if (live)
      allow (self, elapsed);
    return;
  }

  p->recent[p->next] = elapsed;
  p->next = (p->next + 1) % GST_STEREO_DEPTH_PACE_WINDOW;
  p->n_recent = MIN (p->n_recent + 1, GST_STEREO_DEPTH_PACE_WINDOW);
  p->typical = percentile_90 (p->recent, p->n_recent);
  if (live) {
    for (i = 0; i < p->n_recent; i++)
      slowest = MAX (slowest, p->recent[i]);
    allow (self, slowest);
  }
}

void
gst_stereo_depth_pace_flush (GstStereoDepth * self)
{
  GST_OBJECT_LOCK (self);
  self->pace.downstream_syncs = FALSE;
  GST_OBJECT_UNLOCK (self);
}

gboolean
gst_stereo_depth_pace_late (GstStereoDepth * self, GstAggregatorPad * pad,
    GstBuffer * buf, GstClockTime running_time)
{
  GstClockTime latency, now, base, stream_time, pipeline_latency, ready_in;
  GstClock *clock;
  GstMessage *msg;
  guint64 processed, late;
  gboolean downstream_syncs;

  if (!GST_CLOCK_TIME_IS_VALID (running_time))
    return FALSE;
  GST_OBJECT_LOCK (self);
  pipeline_latency = self->pace.pipeline_latency;
  downstream_syncs = self->pace.downstream_syncs;
  GST_OBJECT_UNLOCK (self);
  latency = gst_aggregator_get_latency (GST_AGGREGATOR (self));
  ready_in = self->pace.typical;
  if (!GST_CLOCK_TIME_IS_VALID (latency)) {
    /* not live: due at a time once a sink that syncs has said so, and
     * only while the clock runs (a pair computed while paused prerolls) */
    if (!downstream_syncs || GST_STATE (self) != GST_STATE_PLAYING)
      return FALSE;
    latency = GST_STEREO_DEPTH_PACE_SINK_LATENESS;
    /* Nothing paces the input: the pair in flight has just started, and
     * this one comes after it (live, the wait for it is in the latency).
     * Counting one pair's time, the sink dropped 58 of 124 outputs with
     * two in flight (the CPU backend, 1280x720 files). */
    ready_in *= self->n_pending + 1;
  }
  if (GST_CLOCK_TIME_IS_VALID (pipeline_latency))
    latency = MAX (latency, pipeline_latency);
  clock = gst_element_get_clock (GST_ELEMENT (self));
  if (!clock)
    return FALSE;
  now = gst_clock_get_time (clock);
  gst_object_unref (clock);
  base = gst_element_get_base_time (GST_ELEMENT (self));
  if (now < base || now - base + ready_in <= running_time + latency)
    return FALSE;
  now -= base;

  GST_OBJECT_LOCK (self);
  late = ++self->pairs_late;
  processed = self->frames_processed;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "pair %" GST_TIME_FORMAT " is late: due at %"
      GST_TIME_FORMAT ", ready at about %" GST_TIME_FORMAT,
      GST_TIME_ARGS (running_time), GST_TIME_ARGS (running_time + latency),
      GST_TIME_ARGS (now + ready_in));

  /* a flush may have reset the segment since the running time was read */
  GST_OBJECT_LOCK (pad);
  stream_time = pad->segment.format == GST_FORMAT_TIME ?
      gst_segment_to_stream_time (&pad->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buf)) : GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (pad);
  msg = gst_message_new_qos (GST_OBJECT (self), TRUE, running_time,
      stream_time, GST_BUFFER_PTS (buf), GST_BUFFER_DURATION (buf));
  gst_message_set_qos_values (msg,
      (gint64) (now + ready_in) - (gint64) (running_time + latency),
      1.0, 1000000);
  gst_message_set_qos_stats (msg, GST_FORMAT_BUFFERS, processed, late);
  gst_element_post_message (GST_ELEMENT (self), msg);
  return TRUE;
}
