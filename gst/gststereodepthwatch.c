/* The starvation watch of stereodepth (see gststereodepthwatch.h).
 *
 * A buffer probe on each sink pad stamps the arrival of every frame, and
 * the pads' buffer-consumed signal the moment the aggregator takes one out;
 * a thread sleeps until the moment an input would have been silent for the
 * timeout while the other delivered.  Silent means no frame waiting in its
 * pad and none arrived or taken out since: an input whose frame waits
 * starves nobody, however long the pair takes to compute (the CPU backend
 * takes longer than four frames of a live camera at large sizes) or however
 * far it is ahead of the other.  Then it posts a warning naming the
 * silent input and drops the frames the other input has waiting; from then
 * on that input's probe drops its frames as they come (they could never be
 * paired), so its upstream keeps flowing, and both count in frames-dropped.
 * The silent input's next frame ends it, with an info message.
 *
 * Time is the monotonic clock, not the pipeline clock: a non-live pipeline
 * stalls while prerolling, before it has a clock.
 *
 * An input that is not linked can never deliver, so with the auto timeout
 * it is declared silent after at most a second even when not live (where
 * a linked input may take as long as it likes): a forgotten sink_right, or
 * a side-by-side source whose caps do not say so, would otherwise hang the
 * pipeline without a word.  The second leaves room for a source that links
 * its pad a little after the other (decodebin's pad-added). */
#include "gststereodepth.h"

GST_DEBUG_CATEGORY_EXTERN (gst_stereo_depth_debug);
#define GST_CAT_DEFAULT gst_stereo_depth_debug

/* The live default: frames a camera may skip before it counts as stopped. */
#define LIVE_TIMEOUT_FRAMES 4
/* The auto timeout's bound for an input that is not linked, in us. */
#define UNLINKED_TIMEOUT G_USEC_PER_SEC

static const gchar *const input_names[2] = { "sink_left", "sink_right" };

static GstAggregatorPad *
input_pad (GstStereoDepth * self, guint i)
{
  return i == GST_STEREO_DEPTH_LEFT ? self->left_pad : self->right_pad;
}

/* The auto timeout in us, 0 for never: 4 frame durations (1 s at an
 * unknown rate) when live, never when not. */
static gint64
auto_timeout (GstStereoDepth * self)
{
  GstClockTime frame;

  if (!GST_CLOCK_TIME_IS_VALID (gst_aggregator_get_latency (GST_AGGREGATOR
              (self))))
    return 0;
  g_mutex_lock (&self->watch.lock);
  frame = self->watch.frame_duration;
  g_mutex_unlock (&self->watch.lock);
  if (!GST_CLOCK_TIME_IS_VALID (frame))
    return G_USEC_PER_SEC;
  return LIVE_TIMEOUT_FRAMES * (gint64) (frame / GST_USECOND);
}

/* An input's timeout in us, 0 for never: the property, or auto, at most
 * UNLINKED_TIMEOUT while the input is not linked. */
static gint64
effective_timeout (GstStereoDepth * self, gboolean linked)
{
  gint64 timeout;

  GST_OBJECT_LOCK (self);
  timeout = self->timeout;
  GST_OBJECT_UNLOCK (self);
  if (timeout >= 0)
    return timeout / GST_USECOND;
  timeout = auto_timeout (self);
  if (!linked && (timeout == 0 || timeout > UNLINKED_TIMEOUT))
    timeout = UNLINKED_TIMEOUT;
  return timeout;
}

/* Drops what input other has queued (aggregate() is not running: it holds
 * aggregate_lock too). */
static void
drop_waiting (GstStereoDepth * self, guint other)
{
  GstAggregatorPad *pad = input_pad (self, other);
  guint n = 0;

  g_mutex_lock (&self->aggregate_lock);
  while (gst_aggregator_pad_has_buffer (pad)) {
    gst_stereo_depth_drop (self, pad, "the other input is silent");
    n++;
  }
  g_mutex_unlock (&self->aggregate_lock);
  if (n) {
    g_mutex_lock (&self->watch.lock);
    self->watch.dropped[other] += n;
    g_mutex_unlock (&self->watch.lock);
  }
}

/* What the thread does about an input it finds silent. */
typedef enum
{
  WATCH_NOTHING,
  WATCH_DECLARE,                /* warn, and drop the other input's frames */
  WATCH_END,                    /* the other input has ended: end this one */
} WatchAction;

static gpointer
watch_thread (gpointer data)
{
  GstStereoDepth *self = data;
  GstStereoDepthWatch *w = &self->watch;

  g_mutex_lock (&w->lock);
  while (w->running) {
    gint64 timeout[2], since[2], now, deadline = G_MAXINT64;
    gboolean linked[2], waiting[2];
    WatchAction action = WATCH_NOTHING;
    guint i, silent = 0, other;

    /* the aggregator's and the pads' locks are never taken under ours, so
     * the timeouts are read unlocked; a setting that changes meanwhile sets
     * recheck, and the thread goes round again rather than sleeping on a
     * stale timeout or a frame taken out meanwhile (a pad linked
     * meanwhile is seen at its first frame) */
    w->recheck = FALSE;
    g_mutex_unlock (&w->lock);
    for (i = 0; i < 2; i++) {
      linked[i] = gst_pad_is_linked (GST_PAD (input_pad (self, i)));
      waiting[i] = gst_aggregator_pad_has_buffer (input_pad (self, i));
      timeout[i] = effective_timeout (self, linked[i]);
    }
    g_mutex_lock (&w->lock);
    if (!w->running)
      break;

    now = g_get_monotonic_time ();
    for (i = 0; i < 2; i++)
      since[i] = MAX (w->arrival[i], w->consumed[i]);
    for (i = 0; !w->single_input && i < 2 && action == WATCH_NOTHING; i++) {
      other = 1 - i;
      silent = i;
      if (w->ended[i] || timeout[i] == 0)
        continue;
      if (w->silent[i]) {
        /* nothing more can pair once the other input has ended too */
        if (w->ended[other])
          action = WATCH_END;
      } else if (!waiting[i] && w->arrival[other] > since[i]) {
        /* the other input delivered (a frame or EOS) since i's last frame
         * arrived or was taken; a frame taken out wakes the thread */
        if (now >= since[i] + timeout[i])
          action = WATCH_DECLARE;
        else
          deadline = MIN (deadline, since[i] + timeout[i]);
      }
    }

    other = 1 - silent;
    if (action == WATCH_DECLARE) {
      gint64 quiet = now - since[silent];

      w->silent[silent] = TRUE;
      w->dropped[other] = 0;
      g_mutex_unlock (&w->lock);
      GST_ELEMENT_WARNING (self, STREAM, FAILED,
          ("%s has delivered no frame for %.2f s while %s delivered%s; the "
              "frames of %s are dropped (and counted in frames-dropped) "
              "until %s delivers again.", input_names[silent],
              quiet / (double) G_USEC_PER_SEC, input_names[other],
              linked[silent] ? "" : silent == GST_STEREO_DEPTH_RIGHT ?
              ": it is not linked (link it, or set input-layout=side-by-side "
              "or top-bottom when sink_left's frames hold both views)" :
              ": it is not linked", input_names[other],
              input_names[silent]),
          ("timeout %" G_GINT64_FORMAT " us", timeout[silent]));
      /* frames queued before the silence; in a pipeline that is not live
       * the other input's upstream waits for room in its pad.  The frame
       * it was waiting with is queued next (it passed the probe before the
       * silence began) and stays there harmlessly: the probe drops every
       * later one, and aggregate() drops it once it can never pair. */
      drop_waiting (self, other);
      g_mutex_lock (&w->lock);
      continue;
    }
    if (action == WATCH_END) {
      w->ended[silent] = TRUE;
      g_mutex_unlock (&w->lock);
      GST_INFO_OBJECT (self, "%s has ended and %s is silent: ending %s",
          input_names[other], input_names[silent], input_names[silent]);
      gst_pad_send_event (GST_PAD (input_pad (self, silent)),
          gst_event_new_eos ());
      g_mutex_lock (&w->lock);
      continue;
    }

    if (w->recheck)
      continue;
    w->idle = deadline == G_MAXINT64;
    if (w->idle)
      g_cond_wait (&w->cond, &w->lock);
    else
      g_cond_wait_until (&w->cond, &w->lock, deadline);
    w->idle = FALSE;
  }
  g_mutex_unlock (&w->lock);
  return NULL;
}

/* Every frame, gap and EOS of input i: stamps its arrival; a frame or gap
 * also ends i's silence, and is dropped while the other input is silent.
 * EOS is noted here, as it enters the pad: the aggregator marks a pad EOS
 * only when its streaming thread takes the event out of the queue, and
 * that thread sleeps while the other input is silent. */
static GstPadProbeReturn
watch_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstStereoDepth *self = user_data;
  GstStereoDepthWatch *w = &self->watch;
  guint i = GST_AGGREGATOR_PAD (pad) == self->left_pad ?
      GST_STEREO_DEPTH_LEFT : GST_STEREO_DEPTH_RIGHT;
  guint other = 1 - i;
  gboolean is_event = GST_PAD_PROBE_INFO_TYPE (info) &
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM;
  guint n = 1;
  gboolean back, drop;
  guint64 dropped = 0;

  if (is_event) {
    GstEventType type = GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info));

    /* a gap says that no frame comes for a while: the input is not silent,
     * and the gap goes on (or is dropped) as a frame would, counting as
     * none */
    if (type == GST_EVENT_GAP) {
      n = 0;
    } else if (type == GST_EVENT_EOS || type == GST_EVENT_FLUSH_STOP) {
      g_mutex_lock (&w->lock);
      w->ended[i] = type == GST_EVENT_EOS;
      w->arrival[i] = g_get_monotonic_time ();
      if (w->idle)
        g_cond_signal (&w->cond);
      g_mutex_unlock (&w->lock);
      return GST_PAD_PROBE_OK;
    } else {
      return GST_PAD_PROBE_OK;
    }
  } else if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    n = gst_buffer_list_length (GST_PAD_PROBE_INFO_BUFFER_LIST (info));
  }

  g_mutex_lock (&w->lock);
  w->arrival[i] = g_get_monotonic_time ();
  back = w->silent[i];
  if (back) {
    w->silent[i] = FALSE;
    dropped = w->dropped[other];
  }
  drop = w->silent[other];
  if (drop)
    w->dropped[i] += n;
  if (w->idle)
    g_cond_signal (&w->cond);
  g_mutex_unlock (&w->lock);

  if (back)
    GST_ELEMENT_INFO (self, STREAM, FAILED,
        ("%s delivers frames again; %" G_GUINT64_FORMAT " frames of %s "
            "were dropped while it was silent.", input_names[i], dropped,
            input_names[other]), (NULL));
  if (drop) {
    GST_OBJECT_LOCK (self);
    self->frames_dropped += n;
    GST_OBJECT_UNLOCK (self);
    GST_LOG_OBJECT (pad, "dropping %u frame(s): %s is silent", n,
        input_names[other]);
  }
  return drop ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
}

/* The aggregator took a frame of pad out of its queue (under the pad's
 * lock, which the thread never takes under ours): its input may deliver
 * the next one from now on. */
static void
watch_consumed (GstAggregatorPad * pad, G_GNUC_UNUSED GstBuffer * buffer,
    gpointer user_data)
{
  GstStereoDepth *self = user_data;
  GstStereoDepthWatch *w = &self->watch;
  guint i = pad == self->left_pad ? GST_STEREO_DEPTH_LEFT :
      GST_STEREO_DEPTH_RIGHT;

  g_mutex_lock (&w->lock);
  w->consumed[i] = g_get_monotonic_time ();
  /* the thread may have read the pad as waiting just before; one waiting
   * for a deadline recomputes it when it comes, so only an idle one is
   * woken, as by a frame's arrival */
  w->recheck = TRUE;
  if (w->idle)
    g_cond_signal (&w->cond);
  g_mutex_unlock (&w->lock);
}

void
gst_stereo_depth_watch_init (GstStereoDepth * self)
{
  guint i;

  g_mutex_init (&self->watch.lock);
  g_cond_init (&self->watch.cond);
  self->watch.frame_duration = GST_CLOCK_TIME_NONE;
  for (i = 0; i < 2; i++) {
    GstAggregatorPad *pad = input_pad (self, i);

    gst_pad_add_probe (GST_PAD (pad),
        GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST |
        GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, watch_probe, self, NULL);
    g_object_set (pad, "emit-signals", TRUE, NULL);
    g_signal_connect (pad, "buffer-consumed", G_CALLBACK (watch_consumed),
        self);
  }
}

void
gst_stereo_depth_watch_clear (GstStereoDepth * self)
{
  g_mutex_clear (&self->watch.lock);
  g_cond_clear (&self->watch.cond);
}

void
gst_stereo_depth_watch_restart (GstStereoDepth * self)
{
  GstStereoDepthWatch *w = &self->watch;
  guint i;

  g_mutex_lock (&w->lock);
  for (i = 0; i < 2; i++) {
    w->arrival[i] = g_get_monotonic_time ();
    w->consumed[i] = 0;
    w->silent[i] = FALSE;
    w->ended[i] = FALSE;
    w->dropped[i] = 0;
  }
  g_cond_signal (&w->cond);
  g_mutex_unlock (&w->lock);
}

void
gst_stereo_depth_watch_start (GstStereoDepth * self)
{
  gst_stereo_depth_watch_restart (self);
  g_mutex_lock (&self->watch.lock);
  self->watch.running = TRUE;
  g_mutex_unlock (&self->watch.lock);
  self->watch.thread = g_thread_new ("stereodepth-watch", watch_thread, self);
}

void
gst_stereo_depth_watch_stop (GstStereoDepth * self)
{
  if (!self->watch.thread)
    return;
  g_mutex_lock (&self->watch.lock);
  self->watch.running = FALSE;
  g_cond_signal (&self->watch.cond);
  g_mutex_unlock (&self->watch.lock);
  g_thread_join (self->watch.thread);
  self->watch.thread = NULL;
}

void
gst_stereo_depth_watch_set_frame_duration (GstStereoDepth * self,
    GstClockTime duration)
{
  g_mutex_lock (&self->watch.lock);
  self->watch.frame_duration = duration;
  self->watch.recheck = TRUE;
  g_cond_signal (&self->watch.cond);
  g_mutex_unlock (&self->watch.lock);
}

void
gst_stereo_depth_watch_set_single_input (GstStereoDepth * self,
    gboolean single)
{
  g_mutex_lock (&self->watch.lock);
  self->watch.single_input = single;
  self->watch.recheck = TRUE;
  g_cond_signal (&self->watch.cond);
  g_mutex_unlock (&self->watch.lock);
}

void
gst_stereo_depth_watch_wake (GstStereoDepth * self)
{
  g_mutex_lock (&self->watch.lock);
  self->watch.recheck = TRUE;
  g_cond_signal (&self->watch.cond);
  g_mutex_unlock (&self->watch.lock);
}
