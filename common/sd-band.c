/* Horizontal bands (sd-band.h). */
#include "sd-band.h"

int
sd_band_count (int height, int band_rows)
{
  if (band_rows <= 0 || band_rows >= height)
    return 1;
  return (height + band_rows - 1) / band_rows;
}

SdBand
sd_band_get (int height, int band_rows, int k)
{
  SdBand b;
  if (sd_band_count (height, band_rows) == 1) {
    b.in_y0 = b.keep_y0 = 0;
    b.in_height = b.keep_height = height;
    return b;
  }
  b.keep_y0 = k * band_rows;
  b.keep_height = height - b.keep_y0 < band_rows ? height - b.keep_y0 :
      band_rows;
  b.in_height = band_rows + 2 * SD_BAND_OVERLAP;
  if (b.in_height > height)
    b.in_height = height;
  b.in_y0 = b.keep_y0 - SD_BAND_OVERLAP;
  if (b.in_y0 > height - b.in_height)
    b.in_y0 = height - b.in_height;
  if (b.in_y0 < 0)
    b.in_y0 = 0;
  return b;
}

SdStatus
sd_band_rows_to_fit (const SdParams * params, int width, int height,
    size_t limit, const char *memory, SdBandBytes bytes, void *user,
    int *rows, SdError * err)
{
  size_t least = bytes (0, user);
  int least_rows = 0;
  *rows = 0;
  if (least <= limit)
    return SD_OK;
  for (int count = 2; count <= height; count++) {
    const int r = (height + count - 1) / count;
    const size_t b = bytes (r, user);
    if (b <= limit) {
      *rows = r;
      return SD_OK;
    }
    if (b < least) {
      least = b;
      least_rows = r;
    }
  }
  return sd_error_set (err, SD_ERROR_OUT_OF_MEMORY,
      "out of %s: %s on %dx%d with %d disparities needs %zu MB even in "
      "bands of %d rows, and %zu MB may be used%s", memory,
      sd_enum_to_nick (sd_algorithm_entries, params->algorithm), width,
      height, params->num_disparities, (least + (1 << 20) - 1) >> 20,
      least_rows, limit >> 20, params->max_device_memory ?
      " (max-device-memory)" : "");
}
