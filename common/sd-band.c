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

int
sd_band_rows_to_fit (int height, size_t limit, SdBandBytes bytes,
    void *user, size_t * least, int *least_rows)
{
  *least = bytes (0, user);
  *least_rows = 0;
  if (*least <= limit)
    return 0;
  for (int count = 2; count <= height; count++) {
    const int rows = (height + count - 1) / count;
    const size_t b = bytes (rows, user);
    if (b <= limit)
      return rows;
    if (b < *least) {
      *least = b;
      *least_rows = rows;
    }
  }
  return -1;
}
