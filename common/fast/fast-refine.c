/* The left-right check (common/cpu/refine.c), rows over threads. */
#include "sd-fast.h"

void
sd_fast_lr_check (const SdParams * p, int16_t * disp,
    const int16_t * right_disp, int width, int height)
{
  /* a pixel is checked against its own row of the right view */
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++)
    sd_cpu_lr_check (p, disp + (size_t) y * width,
        right_disp + (size_t) y * width, width, 1);
}

