/* Colour maps for looking at disparity: shared by depthcolormap and
 * sd-bench's preview picture. */
#ifndef SD_COLORMAP_H
#define SD_COLORMAP_H

#include <stdint.h>

#include "sd-params.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  SD_COLORMAP_TURBO,
  SD_COLORMAP_JET,
  SD_COLORMAP_GRAYSCALE,
} SdColormap;

extern const SdEnumEntry sd_colormap_entries[];

/* Colour of t in [0, 1] (clamped), as 8-bit R, G, B. */
void sd_colormap_rgb (SdColormap map, double t, uint8_t rgb[3]);

/* A 256-entry table of the map, for per-pixel lookups. */
void sd_colormap_table (SdColormap map, uint8_t table[256][3]);

#ifdef __cplusplus
}
#endif

#endif
