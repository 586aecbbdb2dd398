/* Reference stages whose rows are independent (common/cpu/prefilter.c,
 * refine.c, bp.c), rows over threads: each row is the reference run on a
 * one-row image, so the values are the reference's.  And the
 * rectification's rows over threads, through the best build's stage. */
#include "sd-fast.h"

void
sd_fast_rows (const SdParams * p, SdRowFilter filter, const uint8_t * src,
    uint8_t * dst, int width, int height, int window)
{
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++)
    filter (src, dst, width, height, window, y);
}

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

void
sd_fast_bp_data_cost (const SdParams * p, const float *left,
    const float *right, const uint64_t * census_left,
    const uint64_t * census_right, float *cost, int width, int height)
{
  /* a pixel's costs read its own row of the right view */
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++) {
    const size_t row = (size_t) y * width;
    sd_cpu_bp_data_cost (p, left + row, right + row,
        census_left ? census_left + row : NULL,
        census_right ? census_right + row : NULL,
        cost + row * p->num_disparities, width, 1);
  }
}

void
sd_fast_bp_disparities (const SdParams * p, const float *belief,
    int16_t * disp, uint8_t * margin, int16_t * right_disp, int width,
    int height)
{
  const bool right = sd_params_lr_check (p) != SD_LR_CHECK_OFF;
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++) {
    const size_t row = (size_t) y * width;
    sd_cpu_bp_disparity (p, belief + row * p->num_disparities, disp + row,
        margin ? margin + row : NULL, width, 1);
    if (right)
      sd_cpu_bp_right_disparity (p, belief + row * p->num_disparities,
          right_disp + row, width, 1);
  }
}

void
sd_fast_rectify_component (const SdParams * p, const int32_t * map,
    const uint8_t * src, int src_stride, uint8_t * dst, int dst_stride,
    int pixel_stride, int width, int height)
{
  const SdCpuStages *st = sd_fast_pick_stages ();
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++)
    st->rectify_rows (map, src, src_stride, dst, dst_stride, pixel_stride,
        width, height, y, y + 1);
}

void
sd_fast_rectify_component16 (const SdParams * p, const int32_t * map,
    const uint16_t * src, int src_stride, uint16_t * dst, int dst_stride,
    int pixel_stride, int depth, int shift, int width, int height)
{
  const SdCpuStages *st = sd_fast_pick_stages ();
#pragma omp parallel for schedule(static) num_threads (sd_fast_threads (p))
  for (int y = 0; y < height; y++)
    st->rectify16_rows (map, src, src_stride, dst, dst_stride, pixel_stride,
        depth, shift, width, height, y, y + 1);
}
