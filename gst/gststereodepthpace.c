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
 * lone first pair and covers most of the spread. */
#include "gststereodepth.h"

#include <stdlib.h>
#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (gst_stereo_depth_debug);
#define GST_CAT_DEFAULT gst_stereo_depth_debug

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
latency_probe (G_GNUC_UNUSED GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data)
{
  GstStereoDepth *self = user_data;
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
  GstClockTime latency;

  if (GST_EVENT_TYPE (event) == GST_EVENT_LATENCY) {
    gst_event_parse_latency (event, &latency);
    GST_OBJECT_LOCK (self);
    self->pace.pipeline_latency = latency;
    GST_OBJECT_UNLOCK (self);
  }
  return GST_PAD_PROBE_OK;
}

void
gst_stereo_depth_pace_init (GstStereoDepth * self)
{
  gst_stereo_depth_pace_reset (self);
  gst_pad_add_probe (GST_AGGREGATOR_SRC_PAD (self),
      GST_PAD_PROBE_TYPE_EVENT_UPSTREAM, latency_probe, self, NULL);
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
  GstClockTime slowest = 0;
  guint i;

  if (!GST_CLOCK_TIME_IS_VALID (gst_aggregator_get_latency (GST_AGGREGATOR
              (self))))
    return;                     /* not live: nothing is due at a time */

  /* a new engine's first pair: its output and the pairs that waited
   * behind it are covered, but it is no sample of the engine's pace (the
   * next pair lowers the allowance again) */
  if (p->first) {
    p->first = FALSE;
    allow (self, elapsed);
    return;
  }

  p->recent[p->next] = elapsed;
  p->next = (p->next + 1) % GST_STEREO_DEPTH_PACE_WINDOW;
  p->n_recent = MIN (p->n_recent + 1, GST_STEREO_DEPTH_PACE_WINDOW);
  for (i = 0; i < p->n_recent; i++)
    slowest = MAX (slowest, p->recent[i]);
  p->typical = percentile_90 (p->recent, p->n_recent);
  allow (self, slowest);
}

gboolean
gst_stereo_depth_pace_late (GstStereoDepth * self, GstAggregatorPad * pad,
    GstBuffer * buf, GstClockTime running_time)
{
  GstClockTime latency, now, base, stream_time;
  GstClock *clock;
  GstMessage *msg;
  guint64 processed, late;

  latency = gst_aggregator_get_latency (GST_AGGREGATOR (self));
  if (!GST_CLOCK_TIME_IS_VALID (latency)
      || !GST_CLOCK_TIME_IS_VALID (running_time))
    return FALSE;
  GST_OBJECT_LOCK (self);
  if (GST_CLOCK_TIME_IS_VALID (self->pace.pipeline_latency))
    latency = MAX (latency, self->pace.pipeline_latency);
  GST_OBJECT_UNLOCK (self);
  clock = gst_element_get_clock (GST_ELEMENT (self));
  if (!clock)
    return FALSE;
  now = gst_clock_get_time (clock);
  gst_object_unref (clock);
  base = gst_element_get_base_time (GST_ELEMENT (self));
  if (now < base || now - base + self->pace.typical <= running_time + latency)
    return FALSE;
  now -= base;

  GST_OBJECT_LOCK (self);
  late = ++self->pairs_late;
  processed = self->frames_processed;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "pair %" GST_TIME_FORMAT " is late: due at %"
      GST_TIME_FORMAT ", ready at about %" GST_TIME_FORMAT,
      GST_TIME_ARGS (running_time), GST_TIME_ARGS (running_time + latency),
      GST_TIME_ARGS (now + self->pace.typical));

  /* a flush may have reset the segment since the running time was read */
  GST_OBJECT_LOCK (pad);
  stream_time = pad->segment.format == GST_FORMAT_TIME ?
      gst_segment_to_stream_time (&pad->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buf)) : GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (pad);
  msg = gst_message_new_qos (GST_OBJECT (self), TRUE, running_time,
      stream_time, GST_BUFFER_PTS (buf), GST_BUFFER_DURATION (buf));
  gst_message_set_qos_values (msg,
      (gint64) (now + self->pace.typical) - (gint64) (running_time + latency),
      1.0, 1000000);
  gst_message_set_qos_stats (msg, GST_FORMAT_BUFFERS, processed, late);
  gst_element_post_message (GST_ELEMENT (self), msg);
  return TRUE;
}
