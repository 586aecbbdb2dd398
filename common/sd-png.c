/* PNG files through libpng: the format KITTI, Middlebury 2014 and most
 * camera tools write.  libpng reports errors by longjmp, so every call that
 * can fail runs under setjmp and the error text is kept for the caller. */
#include "sd-png.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  jmp_buf jump;
  char text[200];
} PngError;

static void
on_error (png_structp png, png_const_charp text)
{
  PngError *e = png_get_error_ptr (png);
  snprintf (e->text, sizeof (e->text), "%s", text);
  longjmp (e->jump, 1);
}

static void
on_warning (png_structp png, png_const_charp text)
{
  (void) png;
  (void) text;
}

/* PNG samples are big-endian; planes hold host-endian 16-bit values */
static bool
needs_swap (int depth)
{
  const uint16_t one = 1;
  return depth == 16 && *(const uint8_t *) &one == 1;
}

bool
sd_png_signature (const uint8_t * bytes, size_t n)
{
  return n >= 8 && png_sig_cmp (bytes, 0, 8) == 0;
}

/* The plane format a PNG of this colour type and depth is read into (after
 * the transforms sd_png_read asks for): colour of any depth is RGB (16-bit
 * colour scaled to 8 bits: matching reads 8-bit luma), grey keeps 16 bits. */
static SdPixelFormat
format_for (int colour_type, int depth)
{
  if (colour_type & PNG_COLOR_MASK_COLOR)
    return SD_PIXEL_RGB;
  return depth == 16 ? SD_PIXEL_GRAY16 : SD_PIXEL_GRAY8;
}

SdImage *
sd_png_read (FILE * f, const char *path, char *msg, size_t size)
{
  PngError err = { 0 };
  png_structp png = png_create_read_struct (PNG_LIBPNG_VER_STRING, &err,
      on_error, on_warning);
  png_infop info = png ? png_create_info_struct (png) : NULL;
  if (!info) {
    png_destroy_read_struct (&png, NULL, NULL);
    snprintf (msg, size, "%s: out of memory", path);
    return NULL;
  }
  /* volatile: assigned after setjmp and read after a longjmp */
  SdImage *volatile img = NULL;
  png_bytep *volatile rows = NULL;
  if (setjmp (err.jump)) {
    snprintf (msg, size, "%s: not a valid PNG file: %s", path, err.text);
    sd_image_free (img);
    free (rows);
    png_destroy_read_struct (&png, &info, NULL);
    return NULL;
  }
  png_init_io (png, f);
  png_read_info (png, info);
  const png_uint_32 w = png_get_image_width (png, info);
  const png_uint_32 h = png_get_image_height (png, info);
  const int colour_type = png_get_color_type (png, info);
  const int depth = png_get_bit_depth (png, info);
  const SdPixelFormat format = format_for (colour_type, depth);
  if ((double) w * h > SD_IMAGE_MAX_PIXELS) {
    snprintf (msg, size, "%s: %lux%lu is larger than the %ld pixels accepted",
        path, (unsigned long) w, (unsigned long) h, SD_IMAGE_MAX_PIXELS);
    png_destroy_read_struct (&png, &info, NULL);
    return NULL;
  }
  /* palette and low-depth grey become 8 bits, 16-bit colour too (rounded);
   * alpha is not used */
  if (colour_type == PNG_COLOR_TYPE_PALETTE)
    png_set_palette_to_rgb (png);
  if (colour_type == PNG_COLOR_TYPE_GRAY && depth < 8)
    png_set_expand_gray_1_2_4_to_8 (png);
  if (colour_type & PNG_COLOR_MASK_ALPHA)
    png_set_strip_alpha (png);
  if (format == SD_PIXEL_RGB && depth == 16)
    png_set_scale_16 (png);
  else if (needs_swap (depth))
    png_set_swap (png);
  png_read_update_info (png, info);
  img = sd_image_new ((int) w, (int) h, format);
  rows = img ? malloc (sizeof (png_bytep) * h) : NULL;
  if (!rows) {
    snprintf (msg, size, "%s: out of memory", path);
    sd_image_free (img);
    png_destroy_read_struct (&png, &info, NULL);
    return NULL;
  }
  if (png_get_rowbytes (png, info) != img->plane.stride)
    png_error (png, "unexpected row size");
  for (png_uint_32 y = 0; y < h; y++)
    rows[y] = sd_plane_row (&img->plane, (int) y);
  png_read_image (png, rows);
  png_read_end (png, NULL);
  free (rows);
  png_destroy_read_struct (&png, &info, NULL);
  return img;
}

bool
sd_png_write (const char *path, const SdPlane * p, char *msg, size_t size)
{
  int colour_type, depth;
  switch (p->format) {
    case SD_PIXEL_GRAY8:
      colour_type = PNG_COLOR_TYPE_GRAY;
      depth = 8;
      break;
    case SD_PIXEL_GRAY16:
      colour_type = PNG_COLOR_TYPE_GRAY;
      depth = 16;
      break;
    case SD_PIXEL_RGB:
      colour_type = PNG_COLOR_TYPE_RGB;
      depth = 8;
      break;
    default:
      snprintf (msg, size, "%s: only GRAY8, GRAY16 and RGB planes can be written "
          "as PNG", path);
      return false;
  }
  FILE *volatile f = fopen (path, "wb");
  if (!f) {
    snprintf (msg, size, "cannot write %s: %s", path, strerror (errno));
    return false;
  }
  PngError err = { 0 };
  png_structp png = png_create_write_struct (PNG_LIBPNG_VER_STRING, &err,
      on_error, on_warning);
  png_infop info = png ? png_create_info_struct (png) : NULL;
  if (!info) {
    png_destroy_write_struct (&png, NULL);
    fclose (f);
    snprintf (msg, size, "%s: out of memory", path);
    return false;
  }
  if (setjmp (err.jump)) {
    snprintf (msg, size, "%s: write failed: %s", path, err.text);
    png_destroy_write_struct (&png, &info);
    fclose (f);
    return false;
  }
  png_init_io (png, f);
  png_set_IHDR (png, info, (png_uint_32) p->width, (png_uint_32) p->height,
      depth, colour_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
      PNG_FILTER_TYPE_DEFAULT);
  png_write_info (png, info);
  if (needs_swap (depth))
    png_set_swap (png);
  for (int y = 0; y < p->height; y++)
    png_write_row (png, sd_plane_row (p, y));
  png_write_end (png, NULL);
  png_destroy_write_struct (&png, &info);
  if (fclose (f) != 0) {
    snprintf (msg, size, "%s: write failed: %s", path, strerror (errno));
    return false;
  }
  return true;
}
