#include "sd-image.h"
#include "sd-message.h"
#include "sd-png.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* GRAY16 is host-endian: its high byte is the second on little-endian
 * hosts */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define GRAY16_HIGH_BYTE 0
#else
#define GRAY16_HIGH_BYTE 1
#endif

static const SdPixelLayout layouts[] = {
  [SD_PIXEL_GRAY8] = {1, -1, -1, -1, 0},
  [SD_PIXEL_GRAY16] = {2, -1, -1, -1, GRAY16_HIGH_BYTE},
  [SD_PIXEL_RGB] = {3, 0, 1, 2, -1},
  [SD_PIXEL_BGR] = {3, 2, 1, 0, -1},
  [SD_PIXEL_RGBX] = {4, 0, 1, 2, -1},
  [SD_PIXEL_BGRX] = {4, 2, 1, 0, -1},
  [SD_PIXEL_XRGB] = {4, 1, 2, 3, -1},
  [SD_PIXEL_XBGR] = {4, 3, 2, 1, -1},
  /* a pixel of packed 4:2:2 is two bytes, its Y and one chroma sample */
  [SD_PIXEL_YUYV] = {2, -1, -1, -1, 0},
  [SD_PIXEL_UYVY] = {2, -1, -1, -1, 1},
  /* the high byte of a little-endian sample is its second on any host */
  [SD_PIXEL_GRAY16_LE] = {2, -1, -1, -1, 1},
  [SD_PIXEL_GRAY10_LE] = {2, -1, -1, -1, 0, 2},
  [SD_PIXEL_GRAY12_LE] = {2, -1, -1, -1, 0, 4},
  [SD_PIXEL_AYUV] = {4, -1, -1, -1, 1},
  [SD_PIXEL_VUYA] = {4, -1, -1, -1, 2},
  [SD_PIXEL_FLOAT] = {4, -1, -1, -1, -1},
};

const SdPixelLayout *
sd_pixel_layout (SdPixelFormat format)
{
  return &layouts[format];
}

uint8_t
sd_plane_luma_at (const uint8_t * row, int x, SdPixelFormat format)
{
  const SdPixelLayout *l = &layouts[format];
  const uint8_t *px = row + (size_t) x * l->bytes_per_pixel;
  if (format == SD_PIXEL_FLOAT) {
    float v;
    memcpy (&v, px, 4);
    v = v < 0.f ? 0.f : v > 255.f ? 255.f : v;
    return (uint8_t) lrintf (v);
  }
  if (l->luma < 0)
    return sd_luma_from_rgb (px[l->r], px[l->g], px[l->b]);
  if (!l->luma_shift)
    return px[l->luma];
  const unsigned v = (px[l->luma] | (unsigned) px[l->luma + 1] << 8) >>
      l->luma_shift;
  return (uint8_t) (v > 255 ? 255 : v);
}

void
sd_plane_to_luma (const SdPlane * src, uint8_t * dst)
{
  /* GRAY8 and the Y planes, the usual input, are their own luma */
  const bool bytes = src->format == SD_PIXEL_GRAY8;
  for (int y = 0; y < src->height; y++) {
    const uint8_t *row = sd_plane_row (src, y);
    uint8_t *out = dst + (size_t) y * src->width;
    if (bytes) {
      memcpy (out, row, src->width);
      continue;
    }
    for (int x = 0; x < src->width; x++)
      out[x] = sd_plane_luma_at (row, x, src->format);
  }
}

/* Whether a w x h image of bytes_per_pixel is one the readers accept and
 * the rest of stream f (seekable) holds its samples; says why not. */
static bool
size_allowed (FILE * f, long w, long h, int bytes_per_pixel,
    const char *path, char *msg, size_t size)
{
  if (w * h > SD_IMAGE_MAX_PIXELS) {
    sd_message (msg, size,
        "%s: %ldx%ld is larger than the %ld pixels accepted", path, w, h,
        SD_IMAGE_MAX_PIXELS);
    return false;
  }
  const long here = ftell (f);
  if (here >= 0 && fseek (f, 0, SEEK_END) == 0) {
    const long end = ftell (f);
    fseek (f, here, SEEK_SET);
    if (end - here < w * h * bytes_per_pixel) {
      sd_message (msg, size, "%s: file ends before the last row", path);
      return false;
    }
  }
  return true;
}

SdImage *
sd_image_new (int width, int height, SdPixelFormat format)
{
  if (width <= 0 || height <= 0)
    return NULL;
  SdImage *img = calloc (1, sizeof (*img));
  if (!img)
    return NULL;
  size_t stride = (size_t) width * layouts[format].bytes_per_pixel;
  img->plane.data = calloc ((size_t) height, stride);
  if (!img->plane.data) {
    free (img);
    return NULL;
  }
  img->plane.width = width;
  img->plane.height = height;
  img->plane.stride = stride;
  img->plane.format = format;
  img->channels = layouts[format].r >= 0 ? 3 : 1;
  img->maxval = format == SD_PIXEL_GRAY16 ? 65535 :
      format == SD_PIXEL_FLOAT ? 0 : 255;
  return img;
}

void
sd_image_free (SdImage * img)
{
  if (!img)
    return;
  free (img->plane.data);
  free (img);
}

/* Reads the next header token, skipping whitespace and '#' comments. */
static bool
read_token (FILE * f, char *tok, size_t size)
{
  int c;
  size_t n = 0;
  for (;;) {
    c = fgetc (f);
    if (c == EOF)
      return false;
    if (c == '#') {
      while (c != '\n' && c != EOF)
        c = fgetc (f);
      continue;
    }
    if (!isspace (c))
      break;
  }
  while (c != EOF && !isspace (c) && n + 1 < size) {
    tok[n++] = (char) c;
    c = fgetc (f);
  }
  tok[n] = '\0';
  /* the single whitespace after the last header token was consumed above */
  return n > 0;
}

static bool
read_header_int (FILE * f, long lo, long hi, long *out)
{
  char tok[32], *end;
  if (!read_token (f, tok, sizeof (tok)))
    return false;
  errno = 0;
  long v = strtol (tok, &end, 10);
  if (errno || *end || v < lo || v > hi)
    return false;
  *out = v;
  return true;
}

static bool
host_is_little_endian (void)
{
  const uint16_t one = 1;
  return *(const uint8_t *) &one == 1;
}

static SdImage *
read_pfm (FILE * f, bool colour, const char *path, char *msg, size_t size)
{
  long w, h;
  char tok[64];
  if (!read_header_int (f, 1, 1 << 16, &w) || !read_header_int (f, 1,
          1 << 16, &h) || !read_token (f, tok, sizeof (tok))) {
    sd_message (msg, size, "%s: bad PFM header", path);
    return NULL;
  }
  double scale = atof (tok);
  bool file_le = scale < 0;
  int ch = colour ? 3 : 1;
  if (!size_allowed (f, w, h, (int) sizeof (float) * ch, path, msg, size))
    return NULL;
  SdImage *img = sd_image_new ((int) w, (int) h, SD_PIXEL_FLOAT);
  float *line = malloc (sizeof (float) * ch * w);
  if (!img || !line) {
    sd_message (msg, size, "%s: out of memory", path);
    sd_image_free (img);
    free (line);
    return NULL;
  }
  /* PFM stores the bottom row first */
  for (long y = h - 1; y >= 0; y--) {
    if (fread (line, sizeof (float) * ch, w, f) != (size_t) w) {
      sd_message (msg, size, "%s: file ends before the last row", path);
      sd_image_free (img);
      free (line);
      return NULL;
    }
    float *dst = (float *) sd_plane_row (&img->plane, (int) y);
    for (long x = 0; x < w; x++) {
      float sum = 0;
      for (int c = 0; c < ch; c++) {
        float v = line[x * ch + c];
        if (file_le != host_is_little_endian ()) {
          uint32_t u;
          memcpy (&u, &v, 4);
          u = __builtin_bswap32 (u);
          memcpy (&v, &u, 4);
        }
        sum += v;
      }
      dst[x] = sum / ch;
    }
  }
  free (line);
  return img;
}

SdImage *
sd_image_read (const char *path, char *msg, size_t size)
{
  FILE *f = fopen (path, "rb");
  if (!f) {
    sd_message (msg, size, "cannot open %s: %s", path, strerror (errno));
    return NULL;
  }
  SdImage *img = sd_image_read_stream (f, path, msg, size);
  fclose (f);
  return img;
}

SdImage *
sd_image_read_stream (FILE * f, const char *path, char *msg, size_t size)
{
  char magic[4];
  SdImage *img = NULL;
  uint8_t signature[8];
  const size_t n = fread (signature, 1, sizeof (signature), f);
  rewind (f);
  if (sd_png_signature (signature, n)) {
    img = sd_png_read (f, path, msg, size);
    goto out;
  }
  if (!read_token (f, magic, sizeof (magic))) {
    sd_message (msg, size, "%s: empty or not a PNG, PNM or PFM file", path);
    goto out;
  }
  if (!strcmp (magic, "Pf") || !strcmp (magic, "PF")) {
    img = read_pfm (f, magic[1] == 'F', path, msg, size);
    goto out;
  }
  if (strcmp (magic, "P5") && strcmp (magic, "P6")) {
    sd_message (msg, size,
        "%s: '%s' files are not supported (PNG, binary P5, P6 and PFM are)",
        path, magic);
    goto out;
  }
  bool colour = magic[1] == '6';
  long w, h, maxval;
  if (!read_header_int (f, 1, 1 << 16, &w) || !read_header_int (f, 1,
          1 << 16, &h) || !read_header_int (f, 1, 65535, &maxval)) {
    sd_message (msg, size, "%s: bad PNM header", path);
    goto out;
  }
  bool wide = maxval > 255;
  if (wide && colour) {
    sd_message (msg, size, "%s: 16-bit colour PPM is not supported", path);
    goto out;
  }
  SdPixelFormat fmt = colour ? SD_PIXEL_RGB : wide ? SD_PIXEL_GRAY16 :
      SD_PIXEL_GRAY8;
  if (!size_allowed (f, w, h, layouts[fmt].bytes_per_pixel, path, msg, size))
    goto out;
  img = sd_image_new ((int) w, (int) h, fmt);
  if (!img) {
    sd_message (msg, size, "%s: out of memory", path);
    goto out;
  }
  img->maxval = (int) maxval;
  for (long y = 0; y < h; y++) {
    uint8_t *row = sd_plane_row (&img->plane, (int) y);
    if (fread (row, 1, img->plane.stride, f) != img->plane.stride) {
      sd_message (msg, size, "%s: file ends before the last row", path);
      sd_image_free (img);
      img = NULL;
      goto out;
    }
    if (wide) {
      /* PNM samples are big-endian */
      for (long x = 0; x < w; x++) {
        uint16_t v = (uint16_t) (row[2 * x] << 8 | row[2 * x + 1]);
        memcpy (row + 2 * x, &v, 2);
      }
    }
  }
out:
  return img;
}

static bool
has_png_suffix (const char *path)
{
  const size_t n = strlen (path);
  return n >= 4 && strcasecmp (path + n - 4, ".png") == 0;
}

bool
sd_image_write (const char *path, const SdPlane * p, char *msg, size_t size)
{
  if (has_png_suffix (path))
    return sd_png_write (path, p, msg, size);
  FILE *f = fopen (path, "wb");
  if (!f) {
    sd_message (msg, size, "cannot write %s: %s", path, strerror (errno));
    return false;
  }
  bool ok = true;
  size_t row_bytes = (size_t) p->width * layouts[p->format].bytes_per_pixel;
  uint8_t *buf = malloc (row_bytes);
  switch (p->format) {
    case SD_PIXEL_GRAY8:
      fprintf (f, "P5\n%d %d\n255\n", p->width, p->height);
      break;
    case SD_PIXEL_RGB:
      fprintf (f, "P6\n%d %d\n255\n", p->width, p->height);
      break;
    case SD_PIXEL_GRAY16:
      fprintf (f, "P5\n%d %d\n65535\n", p->width, p->height);
      break;
    case SD_PIXEL_FLOAT:
      fprintf (f, "Pf\n%d %d\n%s\n", p->width, p->height,
          host_is_little_endian ()? "-1.0" : "1.0");
      break;
    default:
      sd_message (msg, size,
          "%s: only GRAY8, GRAY16, RGB and float planes can be written",
          path);
      ok = false;
  }
  for (int i = 0; ok && i < p->height; i++) {
    int y = p->format == SD_PIXEL_FLOAT ? p->height - 1 - i : i;
    memcpy (buf, sd_plane_row (p, y), row_bytes);
    if (p->format == SD_PIXEL_GRAY16) {
      for (int x = 0; x < p->width; x++) {
        uint16_t v;
        memcpy (&v, buf + 2 * x, 2);
        buf[2 * x] = (uint8_t) (v >> 8);
        buf[2 * x + 1] = (uint8_t) v;
      }
    }
    ok = fwrite (buf, 1, row_bytes, f) == row_bytes;
    if (!ok)
      sd_message (msg, size, "%s: write failed: %s", path, strerror (errno));
  }
  free (buf);
  if (fclose (f) != 0 && ok) {
    sd_message (msg, size, "%s: write failed: %s", path, strerror (errno));
    ok = false;
  }
  return ok;
}
