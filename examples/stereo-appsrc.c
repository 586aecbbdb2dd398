/* Example 4: an application feeding stereodepth through two appsrc elements
 * and reading the disparity back through appsink.
 *
 * It renders a textured scene whose right view is the left one shifted by a
 * known disparity (moving a little each frame), pushes FRAMES pairs, and
 * prints the disparity at the image centre of every output frame: it should
 * read DISPARITY.
 *
 * usage: stereo-appsrc [FRAMES [DISPARITY]]      (defaults: 10 and 8)
 * The plugin is found through GST_PLUGIN_PATH (the build's gst/ folder).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#define WIDTH 160
#define HEIGHT 120
#define FPS 30
#define CAPS "video/x-raw,format=GRAY8,width=" G_STRINGIFY (WIDTH) \
    ",height=" G_STRINGIFY (HEIGHT) ",framerate=" G_STRINGIFY (FPS) "/1"

/* A view of the texture starting at column offset: the left view at
 * offset = frame, the right view at frame + disparity, so that left pixel x
 * shows what right pixel x - disparity shows. */
static GstBuffer *
render_view (const guint8 * texture, gint texture_width, gint offset,
    gint frame)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, WIDTH * HEIGHT, NULL);
  GstMapInfo map;
  gint y;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (y = 0; y < HEIGHT; y++)
    memcpy (map.data + y * WIDTH, texture + y * texture_width + offset, WIDTH);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (frame, GST_SECOND, FPS);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale_int (1, GST_SECOND, FPS);
  return buf;
}

/* A fixed-seed noise texture: matching needs texture, and a known seed
 * keeps the output the same from run to run. */
static guint8 *
make_texture (gint texture_width)
{
  guint8 *texture = g_malloc (texture_width * HEIGHT);
  GRand *rand = g_rand_new_with_seed (7);
  gint i;

  for (i = 0; i < texture_width * HEIGHT; i++)
    texture[i] = g_rand_int_range (rand, 0, 256);
  g_rand_free (rand);
  return texture;
}

/* The disparity in pixels at the centre of a GRAY16_LE sample, or -1 when
 * the pixel is invalid. */
static gdouble
centre_disparity (GstSample * sample)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  const guint8 *row;
  guint16 v;

  gst_video_info_from_caps (&info, gst_sample_get_caps (sample));
  gst_video_frame_map (&frame, &info, gst_sample_get_buffer (sample),
      GST_MAP_READ);
  row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
      (HEIGHT / 2) * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
  v = GST_READ_UINT16_LE (row + 2 * (WIDTH / 2));
  gst_video_frame_unmap (&frame);
  /* the output contract: 16 * disparity, 0 = invalid */
  return v ? v / 16.0 : -1;
}

int
main (int argc, char **argv)
{
  gint frames = argc > 1 ? atoi (argv[1]) : 10;
  gint disparity = argc > 2 ? atoi (argv[2]) : 8;
  gint texture_width = WIDTH + frames + disparity;
  GError *error = NULL;
  GstElement *pipeline, *left, *right, *sink;
  GstSample *sample;
  GstMessage *msg;
  GstBus *bus;
  gchar *launch;
  guint8 *texture;
  gint i, received = 0;

  gst_init (&argc, &argv);
  if (frames < 1 || disparity < 0 || disparity > 48) {
    fprintf (stderr, "usage: stereo-appsrc [FRAMES [DISPARITY (0..48)]]\n");
    return 2;
  }

  launch = g_strdup_printf ("stereodepth name=sd num-disparities=64 ! "
      "appsink name=sink sync=false "
      "appsrc name=left format=time caps=%s ! sd.sink_left "
      "appsrc name=right format=time caps=%s ! sd.sink_right", CAPS, CAPS);
  pipeline = gst_parse_launch (launch, &error);
  g_free (launch);
  if (!pipeline) {
    fprintf (stderr, "stereo-appsrc: %s (is GST_PLUGIN_PATH the build's "
        "gst/ folder?)\n", error->message);
    return 1;
  }
  left = gst_bin_get_by_name (GST_BIN (pipeline), "left");
  right = gst_bin_get_by_name (GST_BIN (pipeline), "right");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  texture = make_texture (texture_width);
  for (i = 0; i < frames; i++) {
    gst_app_src_push_buffer (GST_APP_SRC (left),
        render_view (texture, texture_width, i, i));
    gst_app_src_push_buffer (GST_APP_SRC (right),
        render_view (texture, texture_width, i + disparity, i));
  }
  gst_app_src_end_of_stream (GST_APP_SRC (left));
  gst_app_src_end_of_stream (GST_APP_SRC (right));

  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstClockTime pts = GST_BUFFER_PTS (gst_sample_get_buffer (sample));
    gdouble d = centre_disparity (sample);
    gchar text[32] = "invalid";

    if (d >= 0)
      g_snprintf (text, sizeof (text), "%.2f px", d);
    printf ("frame %d at %" GST_TIME_FORMAT ": disparity at the centre "
        "(%d, %d) = %s\n", received++, GST_TIME_ARGS (pts), WIDTH / 2,
        HEIGHT / 2, text);
    gst_sample_unref (sample);
  }

  /* appsink ends at EOS or on an error: say which */
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gst_object_unref (bus);
  if (msg) {
    gst_message_parse_error (msg, &error, NULL);
    fprintf (stderr, "stereo-appsrc: %s\n", error->message);
    g_clear_error (&error);
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  g_free (texture);
  gst_object_unref (sink);
  gst_object_unref (right);
  gst_object_unref (left);
  gst_object_unref (pipeline);
  return received == frames ? 0 : 1;
}
