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
