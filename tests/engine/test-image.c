/* PNG, PNM and PFM files: round trips at 8 and 16 bits, gray and colour,
 * float; header comments; PNG colour types written by libpng itself; clear
 * errors for files that are not right. */
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sd-image.h"
#include "sd-test.h"

static char dir[] = "/tmp/sd-test-image-XXXXXX";

static const char *
tmp_path (const char *name)
{
  static char path[256];
  snprintf (path, sizeof (path), "%s/%s", dir, name);
  return path;
}

static void
round_trip (SdPixelFormat format, const char *name)
{
  const int w = 7, h = 5;
  SdImage *img = sd_image_new (w, h, format);
  const SdPixelLayout *l = sd_pixel_layout (format);
  for (int y = 0; y < h; y++) {
    uint8_t *row = sd_plane_row (&img->plane, y);
    for (int i = 0; i < w * l->bytes_per_pixel; i++)
      row[i] = (uint8_t) (y * 37 + i * 11 + 3);
    if (format == SD_PIXEL_FLOAT)
      for (int x = 0; x < w; x++)
        ((float *) row)[x] = (float) (x * 0.25 - y * 1.5);
  }
  char msg[256];
  SD_CHECK (sd_image_write (tmp_path (name), &img->plane, msg, sizeof (msg)),
      "%s", msg);
  SdImage *back = sd_image_read (tmp_path (name), msg, sizeof (msg));
  SD_CHECK (back != NULL, "%s: %s", name, msg);
  if (back) {
    SD_CHECK_INT (back->plane.format, format);
    SD_CHECK_INT (back->plane.width, w);
    SD_CHECK_INT (back->plane.height, h);
    for (int y = 0; y < h; y++)
      SD_CHECK (memcmp (sd_plane_row (&img->plane, y),
              sd_plane_row (&back->plane, y), (size_t) w *
              l->bytes_per_pixel) == 0, "%s: row %d differs", name, y);
  }
  sd_image_free (img);
  sd_image_free (back);
}

static void
write_file (const char *name, const char *bytes, size_t n)
{
  FILE *f = fopen (tmp_path (name), "wb");
  fwrite (bytes, 1, n, f);
  fclose (f);
}

/* Writes a PNG with libpng directly, rows given as the file holds them
 * (16-bit samples big-endian), so the reader is tested on files it did not
 * write. */
static void
write_png (const char *name, int w, int h, int depth, int colour_type,
    const uint8_t * bytes, const png_color * palette, int n_palette)
{
  FILE *f = fopen (tmp_path (name), "wb");
  png_structp png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL,
      NULL, NULL);
  png_infop info = png_create_info_struct (png);
  png_init_io (png, f);
  png_set_IHDR (png, info, w, h, depth, colour_type, PNG_INTERLACE_NONE,
      PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (palette)
    png_set_PLTE (png, info, palette, n_palette);
  png_write_info (png, info);
  const size_t row_bytes = png_get_rowbytes (png, info);
  for (int y = 0; y < h; y++)
    png_write_row (png, bytes + y * row_bytes);
  png_write_end (png, NULL);
  png_destroy_write_struct (&png, &info);
  fclose (f);
}

static void
png_checks (void)
{
  char msg[256];
  round_trip (SD_PIXEL_GRAY8, "g8.png");
  round_trip (SD_PIXEL_GRAY16, "g16.png");
  round_trip (SD_PIXEL_RGB, "rgb.png");

  /* 16-bit samples are big-endian in the file, host-endian in the plane */
  const uint8_t wide[] = { 0x12, 0x34, 0xab, 0xcd };
  write_png ("w16.png", 2, 1, 16, PNG_COLOR_TYPE_GRAY, wide, NULL, 0);
  SdImage *w = sd_image_read (tmp_path ("w16.png"), msg, sizeof (msg));
  SD_CHECK (w && w->plane.format == SD_PIXEL_GRAY16, "%s", msg);
  if (w) {
    SD_CHECK_INT (((uint16_t *) w->plane.data)[0], 0x1234);
    SD_CHECK_INT (((uint16_t *) w->plane.data)[1], 0xabcd);
  }
  sd_image_free (w);

  /* alpha is dropped, a palette is looked up */
  const uint8_t rgba[] = { 10, 20, 30, 255, 40, 50, 60, 0 };
  write_png ("rgba.png", 2, 1, 8, PNG_COLOR_TYPE_RGB_ALPHA, rgba, NULL, 0);
  SdImage *a = sd_image_read (tmp_path ("rgba.png"), msg, sizeof (msg));
  SD_CHECK (a && a->plane.format == SD_PIXEL_RGB, "%s", msg);
  if (a)
    SD_CHECK (memcmp (a->plane.data, "\x0a\x14\x1e\x28\x32\x3c", 6) == 0,
        "RGBA not read as its RGB");
  sd_image_free (a);
  const png_color palette[2] = { {1, 2, 3}, {200, 100, 50} };
  const uint8_t indices[] = { 1, 0, 1 };
  write_png ("pal.png", 3, 1, 8, PNG_COLOR_TYPE_PALETTE, indices, palette, 2);
  SdImage *pal = sd_image_read (tmp_path ("pal.png"), msg, sizeof (msg));
  SD_CHECK (pal && pal->plane.format == SD_PIXEL_RGB, "%s", msg);
  if (pal)
    SD_CHECK (memcmp (pal->plane.data, "\xc8\x64\x32\x01\x02\x03\xc8\x64"
            "\x32", 9) == 0, "palette not looked up");
  sd_image_free (pal);

  /* 16-bit colour (with alpha, here) is read as 8-bit RGB, each sample
   * v scaled to round (v * 255 / 65535) */
  const uint8_t rgba16[16] = { 0xff, 0xff, 0x80, 0x80, 0x00, 0x00, 0x12, 0x34,
    0x01, 0x00, 0x00, 0x7f, 0xfe, 0xff, 0xab, 0xcd
  };
  write_png ("rgba16.png", 2, 1, 16, PNG_COLOR_TYPE_RGB_ALPHA, rgba16, NULL,
      0);
  SdImage *c16 = sd_image_read (tmp_path ("rgba16.png"), msg, sizeof (msg));
  SD_CHECK (c16 && c16->plane.format == SD_PIXEL_RGB, "%s", msg);
  if (c16) {
    const uint8_t *v = c16->plane.data;
    SD_CHECK (memcmp (v, "\xff\x80\x00\x01\x00\xfe", 6) == 0,
        "16-bit colour not scaled to 8 bits: %02x %02x %02x %02x %02x %02x",
        v[0], v[1], v[2], v[3], v[4], v[5]);
  }
  sd_image_free (c16);

  /* refused: a truncated file, a float plane as PNG */
  FILE *f = fopen (tmp_path ("g8.png"), "rb");
  char bytes[4096];
  const size_t n = fread (bytes, 1, sizeof (bytes), f);
  fclose (f);
  write_file ("cut.png", bytes, n / 2);
  SD_CHECK (sd_image_read (tmp_path ("cut.png"), msg, sizeof (msg)) == NULL,
      "truncated PNG accepted");
  SD_CHECK (strstr (msg, "cut.png: not a valid PNG") != NULL, "message: %s",
      msg);
  float pixel = 1;
  SdPlane fp = { &pixel, 1, 1, sizeof (float), SD_PIXEL_FLOAT };
  SD_CHECK (!sd_image_write (tmp_path ("f.png"), &fp, msg, sizeof (msg)),
      "float plane written as PNG");
  SD_CHECK (strstr (msg, "PNG") != NULL, "message: %s", msg);
}

int
main (void)
{
  if (!mkdtemp (dir)) {
    perror ("mkdtemp");
    return 1;
  }
  round_trip (SD_PIXEL_GRAY8, "g8.pgm");
  round_trip (SD_PIXEL_GRAY16, "g16.pgm");
  round_trip (SD_PIXEL_RGB, "rgb.ppm");
  round_trip (SD_PIXEL_FLOAT, "f.pfm");
  png_checks ();

  char msg[256];
  /* comments between header tokens, as Paint Shop Pro writes them */
  const char commented[] = "P5\n# Created by hand\n3 # width\n2\n# max\n255\n"
      "\x01\x02\x03\x04\x05\x06";
  write_file ("c.pgm", commented, sizeof (commented) - 1);
  SdImage *c = sd_image_read (tmp_path ("c.pgm"), msg, sizeof (msg));
  SD_CHECK (c != NULL, "%s", msg);
  if (c) {
    SD_CHECK_INT (c->plane.width, 3);
    SD_CHECK_INT (c->plane.height, 2);
    SD_CHECK_INT (sd_plane_row (&c->plane, 1)[2], 6);
  }
  sd_image_free (c);

  /* 16-bit samples are big-endian in the file */
  const char wide[] = "P5 2 1 65535\n\x12\x34\xab\xcd";
  write_file ("w.pgm", wide, sizeof (wide) - 1);
  SdImage *wi = sd_image_read (tmp_path ("w.pgm"), msg, sizeof (msg));
  SD_CHECK (wi != NULL, "%s", msg);
  if (wi) {
    SD_CHECK_INT (((uint16_t *) wi->plane.data)[0], 0x1234);
    SD_CHECK_INT (((uint16_t *) wi->plane.data)[1], 0xabcd);
  }
  sd_image_free (wi);

  /* errors name the file and the problem */
  const char truncated[] = "P5\n4 4\n255\n\x01\x02";
  write_file ("t.pgm", truncated, sizeof (truncated) - 1);
  SD_CHECK (sd_image_read (tmp_path ("t.pgm"), msg, sizeof (msg)) == NULL,
      "truncated file accepted");
  SD_CHECK (strstr (msg, "ends before") != NULL, "message: %s", msg);
  /* a header may claim any size: refused before anything is allocated */
  write_file ("big.pgm", "P5 20000 20000 255\n\x01", 20);
  SD_CHECK (sd_image_read (tmp_path ("big.pgm"), msg, sizeof (msg)) == NULL,
      "20000x20000 accepted");
  SD_CHECK (strstr (msg, "larger than") != NULL, "message: %s", msg);
  write_file ("short.pgm", "P5 10000 10000 255\n\x01", 20);
  SD_CHECK (sd_image_read (tmp_path ("short.pgm"), msg, sizeof (msg)) ==
      NULL, "a header larger than its file accepted");
  SD_CHECK (strstr (msg, "ends before") != NULL, "message: %s", msg);
  write_file ("a.pgm", "P2\n1 1\n255\n7\n", 13);
  SD_CHECK (sd_image_read (tmp_path ("a.pgm"), msg, sizeof (msg)) == NULL,
      "ASCII PGM accepted");
  SD_CHECK (strstr (msg, "P2") != NULL, "message: %s", msg);
  SD_CHECK (sd_image_read (tmp_path ("missing.pgm"), msg,
          sizeof (msg)) == NULL, "missing file opened");
  SD_CHECK (strstr (msg, "missing.pgm") != NULL, "message: %s", msg);

  /* luma of packed colour follows sd_luma_from_rgb for every layout */
  const uint8_t rgbx[4] = { 200, 100, 50, 9 };
  const uint8_t xbgr[4] = { 9, 50, 100, 200 };
  const uint8_t expect = sd_luma_from_rgb (200, 100, 50);
  SD_CHECK_INT (sd_plane_luma_at (rgbx, 0, SD_PIXEL_RGBX), expect);
  SD_CHECK_INT (sd_plane_luma_at (rgbx, 0, SD_PIXEL_RGB), expect);
  SD_CHECK_INT (sd_plane_luma_at (xbgr, 0, SD_PIXEL_XBGR), expect);
  SD_CHECK_INT (sd_plane_luma_at (xbgr + 1, 0, SD_PIXEL_BGR), expect);
  SD_CHECK_INT (sd_luma_from_rgb (255, 255, 255), 255);
  SD_CHECK_INT (sd_luma_from_rgb (0, 0, 0), 0);
  const uint16_t g16 = 0xab12;
  SD_CHECK_INT (sd_plane_luma_at ((const uint8_t *) &g16, 0,
          SD_PIXEL_GRAY16), 0xab);
  /* little-endian 16-bit samples on any host: the 8 most significant of
   * the bits they hold, 255 for a sample wider than its bits */
  const uint8_t le16[2] = { 0x12, 0xab }, le10[2] = { 0xb7, 0x02 };
  const uint8_t le12[2] = { 0xb7, 0x0a }, over[2] = { 0x00, 0x40 };
  SD_CHECK_INT (sd_plane_luma_at (le16, 0, SD_PIXEL_GRAY16_LE), 0xab);
  SD_CHECK_INT (sd_plane_luma_at (le10, 0, SD_PIXEL_GRAY10_LE), 0xad);
  SD_CHECK_INT (sd_plane_luma_at (le12, 0, SD_PIXEL_GRAY12_LE), 0xab);
  SD_CHECK_INT (sd_plane_luma_at (over, 0, SD_PIXEL_GRAY10_LE), 255);
  SD_CHECK_INT (sd_plane_luma_at (over, 0, SD_PIXEL_GRAY12_LE), 255);
  /* packed 4:4:4 with alpha: A Y U V and V U Y A */
  const uint8_t ayuv[8] = { 255, 10, 128, 129, 255, 20, 130, 131 };
  const uint8_t vuya[8] = { 128, 129, 10, 255, 130, 131, 20, 255 };
  for (int x = 0; x < 2; x++) {
    SD_CHECK_INT (sd_plane_luma_at (ayuv, x, SD_PIXEL_AYUV), 10 * (x + 1));
    SD_CHECK_INT (sd_plane_luma_at (vuya, x, SD_PIXEL_VUYA), 10 * (x + 1));
  }
  /* packed 4:2:2: every pixel's Y, whichever chroma sample shares it */
  const uint8_t yuyv[8] = { 10, 128, 20, 129, 30, 130, 40, 131 };
  const uint8_t uyvy[8] = { 128, 10, 129, 20, 130, 30, 131, 40 };
  for (int x = 0; x < 4; x++) {
    SD_CHECK_INT (sd_plane_luma_at (yuyv, x, SD_PIXEL_YUYV), 10 * (x + 1));
    SD_CHECK_INT (sd_plane_luma_at (uyvy, x, SD_PIXEL_UYVY), 10 * (x + 1));
  }

  for (const char *n = "g8.pgm\0g16.pgm\0rgb.ppm\0f.pfm\0c.pgm\0w.pgm\0"
      "t.pgm\0a.pgm\0big.pgm\0short.pgm\0g8.png\0g16.png\0rgb.png\0w16.png\0rgba.png\0"
      "pal.png\0rgb16.png\0cut.png\0"; *n; n += strlen (n) + 1)
    unlink (tmp_path (n));
  rmdir (dir);
  return sd_test_exit ("test-image");
}
