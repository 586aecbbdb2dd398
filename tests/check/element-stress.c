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
 *   element-stress soak SECONDS [BACKEND [DEVICE ...]]
 *     1920x1080 pairs (one textured frame a side, repeated by imagefreeze at
 *     no cost) with 128 disparities for SECONDS, printing every 10 s the
 *     pairs so far, the rate over the last 10 s, the process's resident
 *     memory (VmRSS) and the device memory it holds (nvidia-smi, when
 *     present, with the number of GPUs it holds memory on); then EOS, and a
 *     summary line.  With DEVICEs, one stereodepth per device
 *     (cuda-device-id), each with its own inputs, all in one pipeline: the
 *     rate of several GPUs together.
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
#define MAX_ELEMENTS 16

/* A pipeline with stereodepth elements named sd0, sd1, ... */
typedef struct
{
  GstElement *pipeline;
  GstElement *sd[MAX_ELEMENTS];
  gint n_sd;
  gboolean failed;
  gboolean eos;
} Run;

static guint64
element_pairs (GstElement * sd, const gchar * counter)
{
  guint64 n;

  g_object_get (sd, counter, &n, NULL);
  return n;
}

static guint64
pairs (Run * r)
{
  guint64 n = 0;
  gint i;

  for (i = 0; i < r->n_sd; i++)
    n += element_pairs (r->sd[i], "frames-processed");
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
  for (r->n_sd = 0; r->n_sd < MAX_ELEMENTS; r->n_sd++) {
    gchar *name = g_strdup_printf ("sd%d", r->n_sd);

    r->sd[r->n_sd] = gst_bin_get_by_name (GST_BIN (r->pipeline), name);
    g_free (name);
    if (!r->sd[r->n_sd])
      break;
  }
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
  gint i;

  gst_element_set_state (r->pipeline, GST_STATE_NULL);
  for (i = 0; i < r->n_sd; i++)
    gst_object_unref (r->sd[i]);
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
  gchar *description = g_strdup_printf ("stereodepth name=sd0 backend=%s "
      "num-disparities=64 ! fakesink sync=false "
      "videotestsrc pattern=snow num-buffers=%d ! capsfilter name=lcaps "
      "caps=video/x-raw,format=GRAY8,width=320,height=240,framerate=30/1 ! "
      "queue ! sd0.sink_left "
      "videotestsrc pattern=snow num-buffers=%d ! capsfilter name=rcaps "
      "caps=video/x-raw,format=GRAY8,width=320,height=240,framerate=30/1 ! "
      "queue ! sd0.sink_right", backends[0], CHURN_FRAMES, CHURN_FRAMES);
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
    gst_util_set_object_arg (G_OBJECT (r.sd[0]), "backend", b);
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

/* The device memory this process holds in MiB, over all GPUs, from
 * nvidia-smi (-1 where it cannot say), and on how many GPUs. */
static long
gpu_mib (int *n_gpus)
{
  FILE *p = popen ("nvidia-smi --query-compute-apps=pid,used_memory "
      "--format=csv,noheader,nounits 2>/dev/null", "r");
  long pid, mib, found = -1;

  *n_gpus = 0;
  if (!p)
    return -1;
  /* a line per process and GPU */
  while (fscanf (p, "%ld, %ld", &pid, &mib) == 2)
    if (pid == (long) getpid ()) {
      found = MAX (found, 0) + mib;
      ++*n_gpus;
    }
  pclose (p);
  return found;
}

/* One stereodepth per device, each with its own 1920x1080 inputs; without
 * devices one, on the element's default device. */
static gchar *
soak_description (const gchar * backend, gchar ** devices, gint n)
{
  const gchar *caps = "video/x-raw,format=GRAY8,width=1920,height=1080,"
      "framerate=300/1";
  GString *d = g_string_new (NULL);
  gint i;

  for (i = 0; i < MAX (n, 1); i++) {
    gchar *device = n ? g_strdup_printf (" cuda-device-id=%s", devices[i]) :
        g_strdup ("");
    const gchar *side[] = { "left", "right" };
    gint k;

    g_string_append_printf (d, "stereodepth name=sd%d backend=%s%s "
        "num-disparities=128 ! fakesink sync=false ", i, backend, device);
    for (k = 0; k < 2; k++)
      g_string_append_printf (d, "videotestsrc num-buffers=1 pattern=snow ! "
          "%s ! imagefreeze ! queue ! sd%d.sink_%s ", caps, i, side[k]);
    g_free (device);
  }
  return g_string_free (d, FALSE);
}

/* An input's next buffer becomes its EOS, sent from its own streaming
 * thread: an EOS sent from the main thread waits for the input's stream
 * lock, which the streaming thread holds while it pushes, and took 1 to 20
 * s to get in on the GPU machine.  Once the pad is at EOS, its upstream's
 * pushes return EOS before reaching the probe. */
static GstPadProbeReturn
eos_instead (GstPad * pad, G_GNUC_UNUSED GstPadProbeInfo * info,
    G_GNUC_UNUSED gpointer data)
{
  gst_pad_send_event (pad, gst_event_new_eos ());
  return GST_PAD_PROBE_DROP;
}

/* Ends the inputs of every stereodepth: imagefreeze never ends, and a
 * pipeline sends EOS to its sources (videotestsrc, long done). */
static void
end_inputs (Run * r)
{
  gint i;

  for (i = 0; i < r->n_sd; i++) {
    GstIterator *it = gst_element_iterate_sink_pads (r->sd[i]);
    GValue v = G_VALUE_INIT;

    while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
      gst_pad_add_probe (g_value_get_object (&v), GST_PAD_PROBE_TYPE_BUFFER,
          eos_instead, NULL, NULL);
      g_value_reset (&v);
    }
    g_value_unset (&v);
    gst_iterator_free (it);
  }
}

static int
soak (int seconds, const gchar * backend, gchar ** devices, gint n_devices)
{
  Run r = { 0 };
  gchar *description = soak_description (backend, devices, n_devices);
  gboolean ok = start (&r, description);
  const gint64 t0 = g_get_monotonic_time ();
  guint64 last = 0, dropped = 0, at_tick[MAX_ELEMENTS] = { 0 };
  long rss0 = -1, rss_max = 0, gpu0 = -1, gpu_max = -1, rss = 0, gpu = -1;
  int tick, n_gpus = 0, i;
  double sampled = 0, elapsed;

  g_free (description);
  printf ("%6s %10s %8s %10s %9s %5s\n", "t (s)", "pairs", "pairs/s",
      "RSS (MiB)", "GPU (MiB)", "GPUs");
  for (tick = 1; ok && tick * 10 <= seconds; tick++) {
    guint64 n;

    while (!r.failed && !r.eos &&
        g_get_monotonic_time () < t0 + tick * 10 * G_USEC_PER_SEC)
      poll_bus (&r, 100 * GST_MSECOND);
    ok = !r.failed && !r.eos;
    sampled = tick * 10;
    for (n = 0, i = 0; i < r.n_sd; i++)
      n += at_tick[i] = element_pairs (r.sd[i], "frames-processed");
    rss = rss_kib ();
    gpu = gpu_mib (&n_gpus);
    /* the first sample is the baseline: allocations are made by then */
    if (tick == 1) {
      rss0 = rss;
      gpu0 = gpu;
    }
    rss_max = MAX (rss_max, rss);
    gpu_max = MAX (gpu_max, gpu);
    printf ("%6d %10" G_GUINT64_FORMAT " %8.1f %10.1f %9ld %5d\n", tick * 10,
        n, (n - last) / 10.0, rss / 1024.0, gpu, n_gpus);
    fflush (stdout);
    last = n;
  }
  if (ok) {
    end_inputs (&r);
    ok = run_pairs (&r, G_MAXUINT32) && r.eos;
  }
  /* the rates are those of the sampled seconds, without the last pairs
   * and the EOS */
  elapsed = (g_get_monotonic_time () - t0) / 1e6;
  for (i = 0; i < r.n_sd; i++) {
    dropped += element_pairs (r.sd[i], "frames-dropped");
    if (r.n_sd > 1 && sampled > 0)
      printf ("sd%d (cuda-device-id %s): %" G_GUINT64_FORMAT " pairs in %.0f "
          "s, %.1f pairs/s\n", i, devices[i], at_tick[i], sampled,
          at_tick[i] / sampled);
  }
  printf ("soak: %" G_GUINT64_FORMAT " pairs in %.0f s (%.1f pairs/s), "
      "%" G_GUINT64_FORMAT " by EOS at %.0f s, %" G_GUINT64_FORMAT
      " dropped; RSS %.1f MiB at 10 s, %.1f at the end, max %.1f; GPU %ld "
      "MiB at 10 s, %ld at the end, max %ld; %s\n", last, sampled,
      sampled > 0 ? last / sampled : 0.0, pairs (&r), elapsed, dropped,
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
  if (argc >= 3 && argc - 4 <= MAX_ELEMENTS && !strcmp (argv[1], "soak"))
    return soak (atoi (argv[2]), argc >= 4 ? argv[3] : "cuda", argv + 4,
        MAX (argc - 4, 0));
  fprintf (stderr, "usage: element-stress churn BACKEND [BACKEND ...]\n"
      "       element-stress soak SECONDS [BACKEND [DEVICE ...]]\n");
  return 2;
}
