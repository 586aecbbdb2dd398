/* stereodepth's src_confidence pad (see gststereodepthconfidence.h). */
#include "gststereodepth.h"

GST_DEBUG_CATEGORY_EXTERN (gst_stereo_depth_debug);
#define GST_CAT_DEFAULT gst_stereo_depth_debug

#define CONFIDENCE_PAD "src_confidence"

static GstStaticPadTemplate confidence_template =
GST_STATIC_PAD_TEMPLATE (CONFIDENCE_PAD, GST_PAD_SRC, GST_PAD_REQUEST,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY8")));

/* The element's parent class, which has the request and release functions
 * of every other pad, and handles the src pad's events. */
#define AGGREGATOR_CLASS \
    GST_AGGREGATOR_CLASS (g_type_class_peek (GST_TYPE_AGGREGATOR))

gboolean
gst_stereo_depth_confidence_wanted (GstStereoDepth * self)
{
  return self->confidence.pad != NULL;
}

/* The pad with a ref, or NULL. */
static GstPad *
confidence_ref_pad (GstStereoDepth * self)
{
  GstPad *pad;

  GST_OBJECT_LOCK (self);
  pad = self->confidence.pad ? gst_object_ref (self->confidence.pad) : NULL;
  GST_OBJECT_UNLOCK (self);
  return pad;
}

/* The src pad's event as the confidence pad sends it, or NULL for one that
 * is the disparity's alone. */
static GstEvent *
confidence_event (GstEvent * event)
{
  GstEvent *ours;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_STREAM_START:{
      const gchar *id;
      gchar *own;
      guint group;

      /* another stream of the same group, named as gst_pad_create_stream_id
       * names one (which refuses elements with two sink pads) */
      gst_event_parse_stream_start (event, &id);
      own = g_strconcat (id, "/confidence", NULL);
      ours = gst_event_new_stream_start (own);
      g_free (own);
      if (gst_event_parse_group_id (event, &group))
        gst_event_set_group_id (ours, group);
      break;
    }
    case GST_EVENT_CAPS:{
      GstCaps *caps;

      gst_event_parse_caps (event, &caps);
      caps = gst_caps_copy (caps);
      gst_caps_set_simple (caps, "format", G_TYPE_STRING, "GRAY8", NULL);
      ours = gst_event_new_caps (caps);
      gst_caps_unref (caps);
      break;
    }
    case GST_EVENT_SEGMENT:
    case GST_EVENT_EOS:
    case GST_EVENT_FLUSH_START:
    case GST_EVENT_FLUSH_STOP:
    case GST_EVENT_GAP:
    case GST_EVENT_TAG:
      return gst_event_ref (event);
    default:
      return NULL;
  }
  gst_event_set_seqnum (ours, gst_event_get_seqnum (event));
  return ours;
}

static void
confidence_push_event (GstPad * pad, GstEvent * event)
{
  GstEvent *ours = confidence_event (event);

  if (ours && !gst_pad_push_event (pad, ours))
    GST_DEBUG_OBJECT (pad, "%s was not handled downstream",
        GST_EVENT_TYPE_NAME (event));
}

typedef struct
{
  GstEvent *until;
  GPtrArray *events;
} StickyEvents;

static gboolean
collect_sticky (G_GNUC_UNUSED GstPad * pad, GstEvent ** event,
    gpointer user_data)
{
  StickyEvents *sticky = user_data;

  if (*event == sticky->until)
    return FALSE;
  g_ptr_array_add (sticky->events, gst_event_ref (*event));
  return TRUE;
}

/* A pad requested after the src pad began its stream joins that stream:
 * the first time, pad gets the src pad's sticky events, those before until
 * (an event the src pad is pushing; NULL: all).  They are pushed in the
 * streaming thread, in order with what the src pad pushes next. */
static void
confidence_sync (GstStereoDepth * self, GstPad * pad, GstEvent * until)
{
  StickyEvents sticky = { until, NULL };
  gboolean sync;
  guint i;

  GST_OBJECT_LOCK (self);
  sync = pad == self->confidence.pad && !self->confidence.synced;
  if (sync)
    self->confidence.synced = TRUE;
  GST_OBJECT_UNLOCK (self);
  if (!sync)
    return;

  /* copied first: the src pad is locked while its events are visited */
  sticky.events = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_event_unref);
  gst_pad_sticky_events_foreach (GST_AGGREGATOR_SRC_PAD (self),
      collect_sticky, &sticky);
  for (i = 0; i < sticky.events->len; i++)
    confidence_push_event (pad, g_ptr_array_index (sticky.events, i));
  g_ptr_array_unref (sticky.events);
}

/* Every event the src pad pushes goes to the confidence pad too, as
 * confidence_event() turns it. */
static GstPadProbeReturn
confidence_probe (G_GNUC_UNUSED GstPad * srcpad, GstPadProbeInfo * info,
    gpointer user_data)
{
  GstStereoDepth *self = user_data;
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
  GstPad *pad = confidence_ref_pad (self);

  if (!pad)
    return GST_PAD_PROBE_OK;
  /* a flush comes from a seek's thread, not the streaming thread; a new
   * pad joins the stream at the next serialized event or buffer */
  if (GST_EVENT_IS_SERIALIZED (event)
      && GST_EVENT_TYPE (event) != GST_EVENT_FLUSH_STOP)
    confidence_sync (self, pad, GST_EVENT_IS_STICKY (event) ? event : NULL);
  confidence_push_event (pad, event);
  gst_object_unref (pad);
  return GST_PAD_PROBE_OK;
}

/* Downstream of the confidence pad asks about the stream: the caps are
 * the pad's own, everything else (latency, position, duration, ...) is the
 * disparity stream's. */
static gboolean
confidence_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstCaps *filter, *caps, *result;

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:
      caps = gst_pad_get_current_caps (pad);
      if (!caps)
        caps = gst_pad_get_pad_template_caps (pad);
      gst_query_parse_caps (query, &filter);
      result = filter ? gst_caps_intersect_full (filter, caps,
          GST_CAPS_INTERSECT_FIRST) : gst_caps_ref (caps);
      gst_query_set_caps_result (query, result);
      gst_caps_unref (result);
      gst_caps_unref (caps);
      return TRUE;
    case GST_QUERY_ACCEPT_CAPS:
      /* answered from the caps query above */
      return gst_pad_query_default (pad, parent, query);
    default:
      return gst_pad_query (GST_AGGREGATOR_SRC_PAD (parent), query);
  }
}

/* A seek from the confidence branch seeks the element, as one from the
 * disparity branch does; QoS, reconfigure, navigation and latency are the
 * disparity branch's to say. */
static gboolean
confidence_src_event (G_GNUC_UNUSED GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK)
    return gst_pad_send_event (GST_AGGREGATOR_SRC_PAD (parent), event);
  gst_event_unref (event);
  return TRUE;
}

/* A pipeline's seek comes up every branch with one seqnum: the first one
 * seeks.  GstAggregator drops the others too, but 1.22 leaks them. */
static gboolean
confidence_element_src_event (GstAggregator * agg, GstEvent * event)
{
  GstStereoDepth *self = GST_STEREO_DEPTH (agg);
  guint32 seqnum = gst_event_get_seqnum (event);
  gboolean again = FALSE;

  if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK) {
    GST_OBJECT_LOCK (self);
    again = seqnum == self->confidence.seek_seqnum;
    self->confidence.seek_seqnum = seqnum;
    GST_OBJECT_UNLOCK (self);
  }
  if (again) {
    GST_DEBUG_OBJECT (self, "seek %u came up another branch", seqnum);
    gst_event_unref (event);
    return TRUE;
  }
  return AGGREGATOR_CLASS->src_event (agg, event);
}

static GstPad *
confidence_request_new_pad (GstElement * element, GstPadTemplate * templ,
    const gchar * name, const GstCaps * caps)
{
  GstStereoDepth *self = GST_STEREO_DEPTH (element);
  GstPad *pad;
  gboolean running, exists;

  if (!g_str_equal (GST_PAD_TEMPLATE_NAME_TEMPLATE (templ), CONFIDENCE_PAD))
    return GST_ELEMENT_CLASS (AGGREGATOR_CLASS)->request_new_pad (element,
        templ, name, caps);

  pad = gst_pad_new_from_template (templ, CONFIDENCE_PAD);
  gst_pad_set_query_function (pad, GST_DEBUG_FUNCPTR (confidence_query));
  gst_pad_set_event_function (pad, GST_DEBUG_FUNCPTR (confidence_src_event));
  /* a pad added to a running element must be active (as GstElement says
   * when it adds one) */
  GST_OBJECT_LOCK (self);
  running = GST_STATE (self) > GST_STATE_READY
      || GST_STATE_NEXT (self) == GST_STATE_PAUSED;
  GST_OBJECT_UNLOCK (self);
  if (running)
    gst_pad_set_active (pad, TRUE);

  GST_OBJECT_LOCK (self);
  exists = self->confidence.pad != NULL;
  if (!exists) {
    self->confidence.pad = pad;
    self->confidence.synced = FALSE;
    /* the next pair is submitted with a confidence */
    self->params_changed = TRUE;
  }
  GST_OBJECT_UNLOCK (self);
  if (exists) {
    GST_WARNING_OBJECT (self, "refusing a second " CONFIDENCE_PAD " pad: "
        "there is one confidence stream; link its pad to a tee for more");
    gst_pad_set_active (pad, FALSE);
    gst_object_unref (pad);
    return NULL;
  }
  gst_element_add_pad (element, pad);
  GST_DEBUG_OBJECT (self, "requested " CONFIDENCE_PAD);
  return pad;
}

static void
confidence_release_pad (GstElement * element, GstPad * pad)
{
  GstStereoDepth *self = GST_STEREO_DEPTH (element);
  gboolean ours;

  GST_OBJECT_LOCK (self);
  ours = pad == self->confidence.pad;
  if (ours) {
    self->confidence.pad = NULL;
    /* the next pair is submitted without a confidence */
    self->params_changed = TRUE;
  }
  GST_OBJECT_UNLOCK (self);
  if (!ours) {
    GST_ELEMENT_CLASS (AGGREGATOR_CLASS)->release_pad (element, pad);
    return;
  }
  /* a push under way returns flushing, which the streaming thread
   * ignores */
  gst_pad_set_active (pad, FALSE);
  gst_element_remove_pad (element, pad);
  GST_DEBUG_OBJECT (self, "released " CONFIDENCE_PAD);
}

void
gst_stereo_depth_confidence_class_init (GstAggregatorClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gst_element_class_add_static_pad_template (element_class,
      &confidence_template);
  element_class->request_new_pad =
      GST_DEBUG_FUNCPTR (confidence_request_new_pad);
  element_class->release_pad = GST_DEBUG_FUNCPTR (confidence_release_pad);
  klass->src_event = GST_DEBUG_FUNCPTR (confidence_element_src_event);
}

void
gst_stereo_depth_confidence_init (GstStereoDepth * self)
{
  gst_pad_add_probe (GST_AGGREGATOR_SRC_PAD (self),
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_EVENT_FLUSH,
      confidence_probe, self, NULL);
}

gboolean
gst_stereo_depth_confidence_begin (GstStereoDepth * self,
    const GstVideoFrame * disparity, GstStereoDepthConfidenceOut * out)
{
  out->pad = confidence_ref_pad (self);
  if (!out->pad)
    return FALSE;
  out->buffer = NULL;
  if (gst_buffer_pool_acquire_buffer (self->confidence_pool, &out->buffer,
          NULL) != GST_FLOW_OK)
    goto failed;
  /* while the buffer is still writable: a mapped frame holds a ref; the
   * flags say a gap's frame is one */
  gst_buffer_copy_into (out->buffer, disparity->buffer,
      GST_BUFFER_COPY_TIMESTAMPS | GST_BUFFER_COPY_FLAGS, 0, -1);
  /* GRAY8 rows are padded to four bytes, which the frame's stride says */
  if (!gst_video_frame_map (&out->frame, &self->confidence_info,
          out->buffer, GST_MAP_WRITE))
    goto failed;
  return TRUE;

failed:
  GST_WARNING_OBJECT (self, "could not get a confidence frame; this pair "
      "has none");
  gst_clear_buffer (&out->buffer);
  gst_clear_object (&out->pad);
  return FALSE;
}

GstFlowReturn
gst_stereo_depth_confidence_finish (GstStereoDepth * self,
    GstStereoDepthConfidenceOut * out, GstFlowReturn disparity)
{
  GstFlowReturn ret;
  GstCaps *caps;

  gst_video_frame_unmap (&out->frame);
  if (disparity != GST_FLOW_OK) {
    gst_buffer_unref (out->buffer);
    gst_object_unref (out->pad);
    return disparity;
  }

  confidence_sync (self, out->pad, NULL);
  ret = gst_pad_push (out->pad, out->buffer);
  if (ret == GST_FLOW_NOT_NEGOTIATED) {
    caps = gst_pad_get_current_caps (out->pad);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream of " CONFIDENCE_PAD " does not accept the confidence "
            "output %" GST_PTR_FORMAT "; put videoconvert after it.", caps),
        (NULL));
    gst_clear_caps (&caps);
  }
  gst_object_unref (out->pad);
  if (ret > GST_FLOW_NOT_NEGOTIATED) {
    if (ret != GST_FLOW_OK)
      GST_DEBUG_OBJECT (self, "confidence not taken (%s); the disparity "
          "goes on", gst_flow_get_name (ret));
    return GST_FLOW_OK;
  }
  return ret;
}
