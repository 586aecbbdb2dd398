/* libFuzzer target: the image readers (PNG through libpng, PNM, PFM) on
 * arbitrary bytes, as sd-bench and the tests read files from outside. */
#include <stdint.h>
#include <stdio.h>

#include "sd-image.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  if (size == 0)
    return 0;
  FILE *f = fmemopen ((void *) data, size, "rb");
  if (!f)
    return 0;
  char msg[256];
  SdImage *img = sd_image_read_stream (f, "input", msg, sizeof (msg));
  if (img) {
    /* touch every row the reader claims to have filled */
    volatile uint8_t sum = 0;
    for (int y = 0; y < img->plane.height; y++)
      sum ^= sd_plane_row (&img->plane, y)[img->plane.stride - 1];
    (void) sum;
  }
  sd_image_free (img);
  fclose (f);
  return 0;
}
