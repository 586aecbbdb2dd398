/* depthcolormap tests: known disparities give the colour map's colours in
 * every output format, invalid pixels are black, and the automatic range
 * follows the frames. */
#include "sd-check.h"

#include "sd-colormap.h"

#define N 8

typedef struct
{
  const gchar *format;
  gint r, g, b, a;              /* byte offsets in a pixel */
} OutFormat;

static const OutFormat out_formats[] = {
  {"RGBx", 0, 1, 2, 3}, {"BGRx", 2, 1, 0, 3},
  {"RGBA", 0, 1, 2, 3}, {"BGRA", 2, 1, 0, 3},
};

static GstHarness *
colormap_new (const gchar * out_format, const gchar * props)
{
  GstHarness *h = gst_harness_new_parse (props);
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s", out_format);

  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY16_LE,width=8,"
      "height=1,framerate=30/1");
  gst_harness_set_sink_caps_str (h, caps);
  g_free (caps);
  return h;
}

/* Pushes one row of disparities (output units, 16 per pixel) and returns
 * the colour row, 4 bytes a pixel. */
static GstBuffer *
colour_row (GstHarness * h, const guint16 values[N])
{
  guint8 data[2 * N];
  guint i;

  for (i = 0; i < N; i++)
    GST_WRITE_UINT16_LE (data + 2 * i, values[i]);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_memdup (data,
              sizeof (data))), GST_FLOW_OK);
  return gst_harness_pull (h);
}

/* Pixel i of row has colour rgb and is opaque. */
static void
assert_pixel (GstBuffer * row, const OutFormat * f, guint i,
    const guint8 rgb[3])
{
  GstMapInfo map;
  const guint8 *p;

  fail_unless (gst_buffer_map (row, &map, GST_MAP_READ));
  p = map.data + 4 * i;
  fail_unless (p[f->r] == rgb[0] && p[f->g] == rgb[1] && p[f->b] == rgb[2]
      && p[f->a] == 255, "%s pixel %u is %u %u %u %u, expected %u %u %u 255",
      f->format, i, p[f->r], p[f->g], p[f->b], p[f->a], rgb[0], rgb[1], rgb[2]);
  gst_buffer_unmap (row, &map);
}

/* Fixed range 0..255 px: disparity k px is table entry k, beyond the range
 * the last entry, 0 black; for every colour map and output format. */
GST_START_TEST (test_fixed_range)
{
  static const guint16 values[N] = {
    0, 16 * 1, 16 * 64, 16 * 128, 16 * 200, 16 * 255, 16 * 300, 0
  };
  static const guint8 black[3] = { 0, 0, 0 };
  guint m, f, i;

  for (m = 0; sd_colormap_entries[m].nick; m++) {
    guint8 table[256][3];

    sd_colormap_table (sd_colormap_entries[m].value, table);
    for (f = 0; f < G_N_ELEMENTS (out_formats); f++) {
      gchar *props = g_strdup_printf ("depthcolormap colormap=%s range=fixed "
          "min-disparity=0 max-disparity=255", sd_colormap_entries[m].nick);
      GstHarness *h = colormap_new (out_formats[f].format, props);
      GstBuffer *row = colour_row (h, values);

      for (i = 0; i < N; i++)
        assert_pixel (row, &out_formats[f], i, values[i] == 0 ? black :
            table[MIN (values[i] / 16, 255)]);
      gst_buffer_unref (row);
      gst_harness_teardown (h);
      g_free (props);
    }
  }
}

GST_END_TEST;

/* The colours themselves, independent of the tables: turbo (the default)
 * ends in dark red, grayscale is the plain ramp. */
GST_START_TEST (test_known_colours)
{
  static const guint16 values[N] = { 16, 16 * 128, 16 * 255, 0, 0, 0, 0, 0 };
  static const guint8 dark_red[3] = { 122, 4, 3 }, dark_blue[3] = {
    48, 18, 59
  };
  static const guint8 mid_gray[3] = { 128, 128, 128 }, white[3] = {
    255, 255, 255
  };
  GstHarness *h = colormap_new ("RGBA", "depthcolormap range=fixed "
      "min-disparity=1 max-disparity=255");
  GstBuffer *row = colour_row (h, values);

  assert_pixel (row, &out_formats[2], 0, dark_blue);
  assert_pixel (row, &out_formats[2], 2, dark_red);
  gst_buffer_unref (row);
  gst_harness_teardown (h);

  h = colormap_new ("BGRx", "depthcolormap colormap=grayscale range=fixed "
      "min-disparity=0 max-disparity=255");
  row = colour_row (h, values);
  assert_pixel (row, &out_formats[1], 1, mid_gray);
  assert_pixel (row, &out_formats[1], 2, white);
  gst_buffer_unref (row);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* input=depth: near is warm and far is cold, the other way round from
 * disparity.  Fixed 1000..3550 mm on the grayscale ramp: 1000 mm (and
 * nearer) is white, 3550 mm (and farther, 65535 included) black-gray 0,
 * 2275 mm the middle (255 - 128 = 127); auto leaves 65535 out of the
 * range: 1000 .. 2020 mm spans the ramp. */
GST_START_TEST (test_depth_input)
{
  static const guint16 values[N] = { 500, 1000, 2275, 3550, 65535, 0, 0, 0 };
  static const guint16 auto_values[N] = { 1000, 2020, 65535, 0, 0, 0, 0, 0 };
  static const guint8 white[3] = { 255, 255, 255 }, zero[3] = { 0, 0, 0 };
  static const guint8 mid[3] = { 127, 127, 127 };
  GstHarness *h = colormap_new ("RGBx", "depthcolormap input=depth "
      "colormap=grayscale range=fixed min-depth=1000 max-depth=3550");
  GstBuffer *row = colour_row (h, values);

  assert_pixel (row, &out_formats[0], 0, white);
  assert_pixel (row, &out_formats[0], 1, white);
  assert_pixel (row, &out_formats[0], 2, mid);
  assert_pixel (row, &out_formats[0], 3, zero);
  assert_pixel (row, &out_formats[0], 4, zero);
  assert_pixel (row, &out_formats[0], 5, zero);        /* invalid */
  gst_buffer_unref (row);
  gst_harness_teardown (h);

  h = colormap_new ("RGBx", "depthcolormap input=depth colormap=grayscale");
  row = colour_row (h, auto_values);
  assert_pixel (row, &out_formats[0], 0, white);
  assert_pixel (row, &out_formats[0], 1, zero);
  assert_pixel (row, &out_formats[0], 2, zero);
  gst_buffer_unref (row);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* range=auto spans each frame's valid values; smoothing blends the range
 * of the previous frames in. */
GST_START_TEST (test_auto_range)
{
  static const guint16 first[N] = { 0, 160, 240, 320, 0, 200, 0, 0 };
  static const guint16 second[N] = { 320, 400, 480, 0, 0, 0, 0, 0 };
  guint8 table[256][3];
  GstHarness *h = colormap_new ("RGBx", "depthcolormap smoothing=0.5");
  GstBuffer *row;

  sd_colormap_table (SD_COLORMAP_TURBO, table);
  row = colour_row (h, first);
  assert_pixel (row, &out_formats[0], 1, table[0]);
  assert_pixel (row, &out_formats[0], 2, table[128]);
  assert_pixel (row, &out_formats[0], 3, table[255]);
  gst_buffer_unref (row);

  /* range (160 + 320) / 2 .. (320 + 480) / 2 = 240 .. 400 */
  row = colour_row (h, second);
  assert_pixel (row, &out_formats[0], 0, table[128]);
  assert_pixel (row, &out_formats[0], 1, table[255]);
  assert_pixel (row, &out_formats[0], 2, table[255]);
  gst_buffer_unref (row);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
depthcolormap_suite (void)
{
  Suite *s = suite_create ("depthcolormap");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_fixed_range);
  tcase_add_test (tc, test_known_colours);
  tcase_add_test (tc, test_depth_input);
  tcase_add_test (tc, test_auto_range);
  return s;
}

GST_CHECK_MAIN (depthcolormap);
