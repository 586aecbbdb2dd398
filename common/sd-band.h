/* Horizontal bands: a frame too large for the device's memory (or any
 * frame, when params->band_rows asks for it) is processed as a stack of
 * bands.  Band k keeps band_rows output rows (keep_y0, keep_height).
 *
 * hbp and tiled-bp: each band is an image of its own from the prefilter
 * on, every band the same height: it computes its kept rows with
 * SD_BAND_OVERLAP more rows above and below where the frame has them, so
 * that the messages that cross a band's edge have run for a while before
 * they reach the rows it keeps.  Every backend bands them the same way,
 * so CPU and CUDA give the same bits for the same band_rows
 * (docs/algorithms.md, "Bands", has what banding costs in accuracy).
 *
 * sgm: the bands are exact.  Only the cost and path volumes are cut, to
 * the kept rows, and the paths carry across the band edges
 * (cuda/sd-cuda-enqueue.cu, common/fast/fast-sgm.c), so the output is the
 * whole frame's; the reference backend computes sgm whole whatever
 * band_rows says. */
#ifndef SD_BAND_H
#define SD_BAND_H

#include <stddef.h>

#include "sd-engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rows computed above and below the rows a band keeps. */
#define SD_BAND_OVERLAP 64

typedef struct
{
  int in_y0, in_height;         /* the rows computed: the band's image */
  int keep_y0, keep_height;     /* the rows kept, in frame rows */
} SdBand;

/* The bands of a frame of height rows for band_rows output rows a band:
 * one band (the whole frame) when band_rows is 0 or covers the frame. */
int sd_band_count (int height, int band_rows);
/* Band k (0 .. sd_band_count - 1).  Every band of a frame has the same
 * in_height: the last one reaches further up instead of being shorter. */
SdBand sd_band_get (int height, int band_rows, int k);

/* What a backend holds for a frame in bands of band_rows output rows (0:
 * whole), in bytes. */
typedef size_t (*SdBandBytes) (int band_rows, void *user);
/* In *rows the output rows a band of the fewest bands of a frame width x
 * height whose bytes fit limit, each band as short as their count allows
 * (the last then keeps about as many rows as the others); 0 when the
 * whole frame fits.  When no count of bands fits: SD_ERROR_OUT_OF_MEMORY,
 * naming memory ("memory", "GPU memory"), the fewest bytes seen and
 * params' max-device-memory when it set limit.  Not a search on the rows:
 * a backend's bytes need not fall as the bands get shorter (sgm's carried
 * rows grow with their count). */
SdStatus sd_band_rows_to_fit (const SdParams * params, int width,
    int height, size_t limit, const char *memory, SdBandBytes bytes,
    void *user, int *rows, SdError * err);

#ifdef __cplusplus
}
#endif

#endif
