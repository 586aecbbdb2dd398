/* Live pacing of stereodepth (see gststereodepthpace.h).
 *
 * The deadline of a pair is its running time plus the aggregator's latency
 * (upstream's and ours): later, its output reaches the sink late, and a
 * video sink drops it.  A pair started at clock time now is ready about
 * one compute allowance later, so it is late when now + allowance passes
 * its deadline.  Computing such a pair would only make the next one late
 * too; skipping it lets the element catch up to the newest pair. */
#include "gststereodepth.h"

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
}

void
gst_stereo_depth_pace_set_pairing (GstStereoDepth * self,
    GstClockTime pairing)
{
  self->pace.pairing = pairing;
  report (self);
}

void
gst_stereo_depth_pace_note (GstStereoDepth * self, GstClockTime elapsed)
{
  GstStereoDepthPace *p = &self->pace;
  GstClockTime slowest = 0, wanted;
  guint i;

  if (!GST_CLOCK_TIME_IS_VALID (gst_aggregator_get_latency (GST_AGGREGATOR
              (self))))
    return;                     /* not live: nothing is due at a time */

  p->recent[p->next] = elapsed;
  p->next = (p->next + 1) % GST_STEREO_DEPTH_PACE_WINDOW;
  p->n_recent = MIN (p->n_recent + 1, GST_STEREO_DEPTH_PACE_WINDOW);
  for (i = 0; i < p->n_recent; i++)
    slowest = MAX (slowest, p->recent[i]);
  wanted = GST_MSECOND * ((slowest + slowest / 4 + GST_MSECOND - 1) /
      GST_MSECOND);
  /* each change is a latency message and a redistribution in the
   * pipeline: up at once (late pairs otherwise), down only by half */
  if (wanted > p->compute || wanted < p->compute / 2) {
    p->compute = wanted;
    report (self);
  }
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
  clock = gst_element_get_clock (GST_ELEMENT (self));
  if (!clock)
    return FALSE;
  now = gst_clock_get_time (clock);
  gst_object_unref (clock);
  base = gst_element_get_base_time (GST_ELEMENT (self));
  if (now < base || now - base + self->pace.compute <= running_time + latency)
    return FALSE;
  now -= base;

  GST_OBJECT_LOCK (self);
  late = ++self->pairs_late;
  processed = self->frames_processed;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "pair %" GST_TIME_FORMAT " is late: due at %"
      GST_TIME_FORMAT ", ready at about %" GST_TIME_FORMAT,
      GST_TIME_ARGS (running_time), GST_TIME_ARGS (running_time + latency),
      GST_TIME_ARGS (now + self->pace.compute));

  GST_OBJECT_LOCK (pad);
  stream_time = gst_segment_to_stream_time (&pad->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buf));
  GST_OBJECT_UNLOCK (pad);
  msg = gst_message_new_qos (GST_OBJECT (self), TRUE, running_time,
      stream_time, GST_BUFFER_PTS (buf), GST_BUFFER_DURATION (buf));
  gst_message_set_qos_values (msg,
      (gint64) (now + self->pace.compute) - (gint64) (running_time + latency),
      1.0, 1000000);
  gst_message_set_qos_stats (msg, GST_FORMAT_BUFFERS, processed, late);
  gst_element_post_message (GST_ELEMENT (self), msg);
  return TRUE;
}
