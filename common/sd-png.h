/* PNG files (libpng), used by sd_image_read() and sd_image_write(); msg
 * is a buffer of size bytes, as theirs. */
#ifndef SD_PNG_H
#define SD_PNG_H

#include <stdbool.h>
#include <stdio.h>

#include "sd-image.h"

/* Whether the first n bytes of a file are PNG's signature. */
bool sd_png_signature (const uint8_t * bytes, size_t n);

/* Reads a PNG from f (at its start): 8-bit grey gives GRAY8, colour (and
 * palette) RGB, 16-bit colour scaled to 8 bits, 16-bit grey GRAY16
 * (host-endian); alpha is dropped, 1- to 4-bit grey is expanded to 8 bits.
 * Returns NULL with a sentence naming path in msg on failure. */
SdImage *sd_png_read (FILE * f, const char *path, char *msg, size_t size);

/* Writes GRAY8, GRAY16 or RGB as PNG of the same depth. */
bool sd_png_write (const char *path, const SdPlane * plane, char *msg,
    size_t size);

#endif
