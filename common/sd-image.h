/* SdPlane image views, luma conversion, and PNG/PNM/PFM files. */
#ifndef SD_IMAGE_H
#define SD_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Pixel layouts the engine accepts.  Only luma is used: 16-bit samples keep
 * their 8 most significant bits, packed YUV its Y bytes, packed RGB becomes
 * luma through sd_luma_from_rgb(). */
typedef enum
{
  SD_PIXEL_GRAY8,
  SD_PIXEL_GRAY16,              /* host-endian 16 bit */
  SD_PIXEL_RGB,
  SD_PIXEL_BGR,
  SD_PIXEL_RGBX,                /* also RGBA */
  SD_PIXEL_BGRX,                /* also BGRA */
  SD_PIXEL_XRGB,                /* also ARGB */
  SD_PIXEL_XBGR,                /* also ABGR */
  SD_PIXEL_YUYV,                /* packed 4:2:2, Y first: YUY2, YVYU */
  SD_PIXEL_UYVY,                /* packed 4:2:2, chroma first */
  SD_PIXEL_GRAY16_LE,           /* little-endian 16 bit, or more significant
                                 * bits of them: P010, P016 */
  SD_PIXEL_GRAY10_LE,           /* little-endian 16 bit holding 10 bits */
  SD_PIXEL_GRAY12_LE,           /* little-endian 16 bit holding 12 bits */
  SD_PIXEL_AYUV,                /* packed 4:4:4 with alpha first */
  SD_PIXEL_VUYA,                /* packed 4:4:4 with alpha last */
  SD_PIXEL_FLOAT,               /* 32-bit float, for PFM files */
} SdPixelFormat;

/* Where a pixel's luma lies: one byte of it, the bits of a 16-bit sample
 * that hold fewer than 16 (luma_shift), or three colours. */
typedef struct
{
  int bytes_per_pixel;
  int r, g, b;                  /* byte offsets of the colours; -1 when luma is */
  int luma;                     /* byte offset of the luma; -1 for colour */
  /* 0: the luma is the byte at luma.  Otherwise a little-endian 16-bit
   * sample lies there whose luma is sample >> luma_shift, 255 at most (a
   * sample wider than its bits says saturates) */
  int luma_shift;
} SdPixelLayout;

const SdPixelLayout *sd_pixel_layout (SdPixelFormat format);

/* A view of one image plane: it does not own data. */
typedef struct
{
  void *data;
  int width;
  int height;
  size_t stride;                /* bytes from one row to the next */
  SdPixelFormat format;
} SdPlane;

static inline uint8_t *
sd_plane_row (const SdPlane * plane, int y)
{
  return (uint8_t *) plane->data + (size_t) y * plane->stride;
}

/* Full-range BT.601 luma in integers, the one RGB-to-gray rule of the
 * project (CPU, CUDA and the element all use it). */
static inline uint8_t
sd_luma_from_rgb (unsigned r, unsigned g, unsigned b)
{
  return (uint8_t) ((77 * r + 150 * g + 29 * b + 128) >> 8);
}

/* Luma of pixel x in row (a pointer to the row's first byte). */
uint8_t sd_plane_luma_at (const uint8_t * row, int x, SdPixelFormat format);

/* Converts any accepted plane into a tightly packed GRAY8 buffer of
 * width * height bytes. */
void sd_plane_to_luma (const SdPlane * src, uint8_t * dst);

/* The largest image the readers accept, in pixels (16384 x 16384): a
 * header may claim any size, and the readers refuse rather than allocate
 * what no stereo frame needs. */
#define SD_IMAGE_MAX_PIXELS (1L << 28)

/* An image that owns its pixels (rows packed, stride = width * bpp). */
typedef struct
{
  SdPlane plane;
  int channels;                 /* 1 or 3 */
  int maxval;                   /* 255, 65535, or 0 for float */
} SdImage;

/* Reads PNG (see sd-png.h: 8-bit grey and colour, 16-bit grey), binary P5
 * (gray), P6 (RGB) with maxval up to 65535, or PFM (Pf, PF; returned top
 * row first); the kind is told by the file's first bytes.  '#' comments in
 * PNM headers are skipped.  8-bit files give GRAY8 or RGB planes, 16-bit files GRAY16 (colour 16-bit files
 * are refused), PFM files FLOAT (colour PFM is turned into its mean).
 * Returns NULL with a sentence in msg on failure. */
SdImage *sd_image_read (const char *path, char *msg, size_t msg_size);
/* The same from an open, seekable stream at its start (a file, or memory
 * through fmemopen); path only names it in messages. */
SdImage *sd_image_read_stream (FILE * f, const char *path, char *msg,
    size_t msg_size);

/* Allocates an owned image of the given format. */
SdImage *sd_image_new (int width, int height, SdPixelFormat format);
void sd_image_free (SdImage * image);

/* A path ending in ".png" is written as PNG of the plane's depth (GRAY8,
 * GRAY16, RGB); any other as PNM: GRAY8 or RGB as 8-bit P5/P6, GRAY16 as
 * 16-bit P5 (big-endian, as the format requires), FLOAT as PFM.  Returns
 * false with msg on failure. */
bool sd_image_write (const char *path, const SdPlane * plane, char *msg,
    size_t msg_size);

#ifdef __cplusplus
}
#endif

#endif
