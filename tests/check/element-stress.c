/* element-stress: long and restless runs of stereodepth in a real pipeline.
 *
 *   element-stress churn BACKEND [BACKEND ...]
 *     A 320x240 pair stream, not live, through stereodepth while the main
 *     thread plays with it: flushing seeks, a renegotiation (GRAY8 to I420
 *     and back), and a backend change (through the listed backends in turn)
 *     while playing.  Fails on any error message, on a stall, or when the
 *     stream does not reach EOS.  CI runs it on the CPU; on the GPU machine
 *     it runs under compute-sanitizer with cuda and cpu.
 *
 *   element-stress soak SECONDS [BACKEND]
 *     1920x1080 pairs (one textured frame a side, repeated by imagefreeze at
 *     no cost) with 128 disparities for SECONDS, printing every 10 s the
 *     pairs so far, the rate over the last 10 s, the process's resident
 *     memory (VmRSS) and the device memory it holds (nvidia-smi, when
 *     present); then EOS, and a summary line.
 *
 * Exit status 0 on success, 1 on failure, 2 on bad usage. */
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHURN_FRAMES 150        /* 5 s at 30/1 */
#define WAIT_PAIRS 8            /* pairs between two churn steps */
#define STALL_SECONDS 120       /* compute-sanitizer is slow */

typedef struct
{
  GstElement *pipeline;
  GstElement *sd;
  gboolean failed;
  gboolean eos;
} Run;

static guint64
pairs (Run * r)
{
  guint64 n;

  g_object_get (r->sd, "frames-processed", &n, NULL);
  return n;
}

/* Handles what is on the bus: errors fail the run, EOS ends it. */
static void
poll_bus (Run * r, GstClockTime wait)
{
  GstBus *bus = gst_element_get_bus (r->pipeline);
  GstMessage *msg;

  while ((msg = gst_bus_timed_pop_filtered (bus, wait,
              GST_MESSAGE_ERROR | GST_MESSAGE_WARNING | GST_MESSAGE_EOS))) {
    GError *err = NULL;
    gchar *debug = NULL;

    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ERROR:
        gst_message_parse_error (msg, &err, &debug);
        fprintf (stderr, "error from %s: %s\n%s\n",
            GST_OBJECT_NAME (msg->src), err->message, debug ? debug : "");
        r->failed = TRUE;
        break;
      case GST_MESSAGE_WARNING:
        gst_message_parse_warning (msg, &err, &debug);
        fprintf (stderr, "warning from %s: %s\n", GST_OBJECT_NAME (msg->src),
            err->message);
        break;
      default:
        r->eos = TRUE;
        break;
    }
    g_clear_error (&err);
    g_free (debug);
    gst_message_unref (msg);
    wait = 0;
  }
  gst_object_unref (bus);
}

/* Lets the stream run until n more pairs came out, EOS, or an error; no
 * pair for STALL_SECONDS is a stall. */
static gboolean
run_pairs (Run * r, guint64 n)
{
  guint64 done = pairs (r);
  const guint64 target = done + n;
  gint64 last_progress = g_get_monotonic_time ();

  while (!r->failed && !r->eos && done < target) {
    guint64 now_done;

    poll_bus (r, 10 * GST_MSECOND);
    now_done = pairs (r);
    if (now_done != done) {
      done = now_done;
      last_progress = g_get_monotonic_time ();
    } else if (g_get_monotonic_time () - last_progress >
        STALL_SECONDS * G_USEC_PER_SEC) {
      fprintf (stderr, "stalled at %" G_GUINT64_FORMAT " pairs\n", done);
      r->failed = TRUE;
    }
  }
  return !r->failed;
}

static gboolean
start (Run * r, const gchar * description)
{
  GError *err = NULL;

  r->pipeline = gst_parse_launch (description, &err);
  if (!r->pipeline) {
    fprintf (stderr, "pipeline: %s\n", err->message);
    g_error_free (err);
    return FALSE;
  }
  r->sd = gst_bin_get_by_name (GST_BIN (r->pipeline), "sd");
  if (gst_element_set_state (r->pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    poll_bus (r, 0);
    fprintf (stderr, "the pipeline did not start\n");
    return FALSE;
  }
  return TRUE;
}

static void
stop (Run * r)
{
  gst_element_set_state (r->pipeline, GST_STATE_NULL);
  gst_object_unref (r->sd);
  gst_object_unref (r->pipeline);
}

static void
set_format (Run * r, const gchar * format)
{
  static const gchar *const names[] = { "lcaps", "rcaps" };
  guint i;

  for (i = 0; i < 2; i++) {
    GstElement *f = gst_bin_get_by_name (GST_BIN (r->pipeline), names[i]);
    gchar *s = g_strdup_printf ("video/x-raw,format=%s,width=320,"
        "height=240,framerate=30/1", format);
    GstCaps *caps = gst_caps_from_string (s);

    g_object_set (f, "caps", caps, NULL);
    gst_caps_unref (caps);
    g_free (s);
    gst_object_unref (f);
  }
}

static gboolean
seek (Run * r, GstClockTime position)
{
  printf ("flushing seek to %.2f s\n", (double) position / GST_SECOND);
  if (!gst_element_seek_simple (r->pipeline, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, position)) {
    fprintf (stderr, "the seek failed\n");
    r->failed = TRUE;
  }
  return !r->failed;
}

static int
churn (gchar ** backends, int n_backends)
{
  Run r = { 0 };
  gchar *description = g_strdup_printf ("stereodepth name=sd backend=%s "
      "num-disparities=64 ! fakesink sync=false "
      "videotestsrc pattern=snow num-buffers=%d ! capsfilter name=lcaps "
      "caps=video/x-raw,format=GRAY8,width=320,height=240,framerate=30/1 ! "
      "queue ! sd.sink_left "
      "videotestsrc pattern=snow num-buffers=%d ! capsfilter name=rcaps "
      "caps=video/x-raw,format=GRAY8,width=320,height=240,framerate=30/1 ! "
      "queue ! sd.sink_right", backends[0], CHURN_FRAMES, CHURN_FRAMES);
  gboolean ok = start (&r, description);
  int i;

  g_free (description);
  ok = ok && run_pairs (&r, WAIT_PAIRS) && seek (&r, GST_SECOND)
      && run_pairs (&r, WAIT_PAIRS);
  if (ok) {
    printf ("renegotiating to I420\n");
    set_format (&r, "I420");
    ok = run_pairs (&r, WAIT_PAIRS);
  }
  for (i = 1; ok && i <= n_backends; i++) {
    const gchar *b = backends[i % n_backends];

    printf ("backend=%s while playing\n", b);
    gst_util_set_object_arg (G_OBJECT (r.sd), "backend", b);
    ok = run_pairs (&r, WAIT_PAIRS);
  }
  if (ok) {
    printf ("renegotiating to GRAY8\n");
    set_format (&r, "GRAY8");
    ok = run_pairs (&r, WAIT_PAIRS) && seek (&r, 3 * GST_SECOND);
  }
  ok = ok && run_pairs (&r, G_MAXUINT32);
  if (ok && !r.eos) {
    fprintf (stderr, "no EOS\n");
    ok = FALSE;
  }
  printf ("churn: %" G_GUINT64_FORMAT " pairs, %s\n", pairs (&r),
      ok ? "EOS, no error" : "FAILED");
  stop (&r);
  return ok ? 0 : 1;
}

/* The resident memory of this process in KiB (VmRSS). */
static long
rss_kib (void)
{
  FILE *f = fopen ("/proc/self/status", "r");
  char line[256];
  long kib = -1;

  if (!f)
    return -1;
  while (fgets (line, sizeof (line), f))
    if (sscanf (line, "VmRSS: %ld", &kib) == 1)
      break;
  fclose (f);
  return kib;
}

/* The device memory this process holds in MiB, from nvidia-smi; -1 where
 * it cannot say. */
static long
gpu_mib (void)
{
  FILE *p = popen ("nvidia-smi --query-compute-apps=pid,used_memory "
      "--format=csv,noheader,nounits 2>/dev/null", "r");
  long pid, mib, found = -1;

  if (!p)
    return -1;
  while (fscanf (p, "%ld, %ld", &pid, &mib) == 2)
    if (pid == (long) getpid ())
      found = mib;
  pclose (p);
  return found;
}

static int
soak (int seconds, const gchar * backend)
{
  Run r = { 0 };
  const gchar *caps = "video/x-raw,format=GRAY8,width=1920,height=1080,"
      "framerate=300/1";
  gchar *description = g_strdup_printf ("stereodepth name=sd backend=%s "
      "num-disparities=128 ! fakesink sync=false "
      "videotestsrc num-buffers=1 pattern=snow ! %s ! imagefreeze ! queue ! "
      "sd.sink_left "
      "videotestsrc num-buffers=1 pattern=snow ! %s ! imagefreeze ! queue ! "
      "sd.sink_right", backend, caps, caps);
  gboolean ok = start (&r, description);
  const gint64 t0 = g_get_monotonic_time ();
  guint64 last = 0, dropped;
  long rss0 = -1, rss_max = 0, gpu0 = -1, gpu_max = -1, rss = 0, gpu = -1;
  int tick;

  g_free (description);
  printf ("%6s %10s %8s %10s %9s\n", "t (s)", "pairs", "pairs/s", "RSS (MiB)",
      "GPU (MiB)");
  for (tick = 1; ok && tick * 10 <= seconds; tick++) {
    guint64 n;

    while (!r.failed && !r.eos &&
        g_get_monotonic_time () < t0 + tick * 10 * G_USEC_PER_SEC)
      poll_bus (&r, 100 * GST_MSECOND);
    ok = !r.failed && !r.eos;
    n = pairs (&r);
    rss = rss_kib ();
    gpu = gpu_mib ();
    /* the first sample is the baseline: allocations are made by then */
    if (tick == 1) {
      rss0 = rss;
      gpu0 = gpu;
    }
    rss_max = MAX (rss_max, rss);
    gpu_max = MAX (gpu_max, gpu);
    printf ("%6d %10" G_GUINT64_FORMAT " %8.1f %10.1f %9ld\n", tick * 10, n,
        (n - last) / 10.0, rss / 1024.0, gpu);
    fflush (stdout);
    last = n;
  }
  if (ok) {
    /* imagefreeze never ends, and a pipeline sends EOS to its sources
     * (videotestsrc, long done): end the inputs of stereodepth instead */
    GstIterator *it = gst_element_iterate_sink_pads (r.sd);
    GValue v = G_VALUE_INIT;

    while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
      gst_pad_send_event (g_value_get_object (&v), gst_event_new_eos ());
      g_value_reset (&v);
    }
    g_value_unset (&v);
    gst_iterator_free (it);
    ok = run_pairs (&r, G_MAXUINT32) && r.eos;
  }
  g_object_get (r.sd, "frames-dropped", &dropped, NULL);
  printf ("soak: %" G_GUINT64_FORMAT " pairs in %.0f s (%.1f pairs/s), "
      "%" G_GUINT64_FORMAT " dropped; RSS %.1f MiB at 10 s, %.1f at the end, "
      "max %.1f; GPU %ld MiB at 10 s, %ld at the end, max %ld; %s\n",
      pairs (&r), (g_get_monotonic_time () - t0) / 1e6,
      pairs (&r) / ((g_get_monotonic_time () - t0) / 1e6), dropped,
      rss0 / 1024.0, rss / 1024.0, rss_max / 1024.0, gpu0, gpu, gpu_max,
      ok ? "EOS, no error" : "FAILED");
  stop (&r);
  return ok ? 0 : 1;
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  if (argc >= 3 && !strcmp (argv[1], "churn"))
    return churn (argv + 2, argc - 2);
  if ((argc == 3 || argc == 4) && !strcmp (argv[1], "soak"))
    return soak (atoi (argv[2]), argc == 4 ? argv[3] : "cuda");
  fprintf (stderr, "usage: element-stress churn BACKEND [BACKEND ...]\n"
      "       element-stress soak SECONDS [BACKEND]\n");
  return 2;
}
