/* The stages of one pair on the pipeline's stream, in the order of the CPU
 * reference (common/cpu/cpu-backend.c): rectification, the brightness
 * map, prefilter, census, the map applied, the matching (sgm whole or in
 * exact bands, hbp, tiled-bp; those two band by band), the check and
 * median, hole filling and the output.  Only enqueues. */
#include <cuda_runtime.h>

#include <string.h>

#include "sd-cuda-pipeline.h"
#include "sd-cuda-hbp.h"
#include "sd-cuda-tiledbp.h"
#include "sd-band.h"

/* The buffers of SGM's stages for the rows [y0, y0 + rows) of the w x h
 * frame: the frame's images, census and outputs from row y0 on, the
 * volumes for those rows alone. */
static SdCudaSgmBuffers
sgm_buffers (SdCudaPipeline * s, const SdParams * p, const uint8_t * luma,
    const uint8_t * pre, int w, int h, int y0, int rows)
{
  const size_t n = (size_t) w * h, at = (size_t) w * y0;
  SdCudaSgmBuffers b;
  b.census_left = s->census + at;
  b.census_right = s->census + n + at;
  b.image_left = pre + at;
  b.image_right = pre + n + at;
  b.guide = luma + at;
  b.volume = s->volume;
  b.cost_volume = s->cost_volume;
  b.aside = s->aside;
  b.fork = s->fork;
  b.join = s->join;
  b.rows_strip = sd_cuda_pipeline_rows_strip (s, p, w);
  /* twelve steps of reads in flight pay up to 128 disparities; with 256
   * the registers they take cost more occupancy than they give (run 7),
   * and eight do best there (run 24) */
  b.deep_reads = p->num_disparities <= 128;
  b.disp = s->disp + at;
  b.margin = p->confidence ? s->margin + at : NULL;
  b.right_key = s->right_key + at;
  b.width = w;
  b.height = rows;
  b.carry = NULL;
  return b;
}

/* SGM in exact bands (sd_cuda_exact_bands()): the costs and paths of one
 * band of rows at a time, each direction's paths carried across the band edges
 * (SdSgmCarry).  The downward directions go on from the band above, band
 * after band; the upward ones need the band below, so a first pass takes
 * them alone from the frame's bottom band up, keeping their rows at every
 * band's top edge, and the second pass reads those.  The upward paths
 * and the costs of all bands but the top one are computed twice. */
static SdStatus
enqueue_sgm_bands (SdCudaPipeline * s, const SdParams * p,
    const uint8_t * luma, const uint8_t * pre, int w, int h, SdError * err)
{
  const int bands = sd_band_count (h, s->band_rows);
  const size_t row = sd_cuda_sgm_carry_row_bytes (p, w) / sizeof (uint16_t);
  int down, up;
  sd_cuda_sgm_vertical_directions (p, &down, &up);
  /* the rows: downward directions' in two halves (odd and even bands),
   * then the upward directions' at the top edge of band k (k >= 1) */
  uint16_t *const down_rows = s->carry;
  uint16_t *const up_rows = s->carry + 2 * down * row;
  for (int pass = 0; pass < 2; pass++) {
    const bool up_pass = pass == 0;
    for (int i = 0; i < bands - up_pass; i++) {
      const int k = up_pass ? bands - 1 - i : i;
      const SdBand band = sd_band_get (h, s->band_rows, k);
      SdSgmCarry c;
      memset (&c, 0, sizeof (c));
      c.up_only = up_pass;
      int d = 0, u = 0;
      for (int dir = 0; dir < p->paths; dir++) {
        const int dy = sd_cuda_sgm_direction_dy (dir);
        if (dy > 0) {
          if (k > 0)
            c.in[dir] = down_rows + ((k - 1) % 2 * down + d) * row;
          if (k < bands - 1)
            c.out[dir] = down_rows + (k % 2 * down + d) * row;
          d++;
        } else if (dy < 0) {
          if (k < bands - 1)
            c.in[dir] = up_rows + ((size_t) k * up + u) * row;
          if (up_pass)
            c.out[dir] = up_rows + ((size_t) (k - 1) * up + u) * row;
          u++;
        }
      }
      SdCudaSgmBuffers b = sgm_buffers (s, p, luma, pre, w, h,
          band.keep_y0, band.keep_height);
      b.carry = &c;
      SD_CUDA_CHECK (sd_cuda_cost_volume (p, &b, s->stream), "computing costs");
      SD_CUDA_CHECK (sd_cuda_sgm (p, &b, s->stream), "aggregating costs");
      if (!up_pass)
        SD_CUDA_CHECK (sd_cuda_wta (p, &b, s->stream), "choosing disparities");
    }
  }
  return SD_OK;
}

/* SGM aggregation and winner-takes-all on the prefiltered w x h images
 * pre (left, then right) and their census, whole or in exact bands; marks
 * (NULL: none) take the stage boundaries.  Only enqueues. */
static SdStatus
enqueue_sgm (SdCudaPipeline * s, const SdParams * p, const uint8_t * luma,
    const uint8_t * pre, int w, int h, cudaEvent_t * marks, SdError * err)
{
  if (s->band_rows)
    return enqueue_sgm_bands (s, p, luma, pre, w, h, err);
  SdCudaSgmBuffers b = sgm_buffers (s, p, luma, pre, w, h, 0, h);
  if (marks)
    SD_CUDA_CHECK (cudaEventRecord (marks[1], s->stream), "recording an event");
  SD_CUDA_CHECK (sd_cuda_cost_volume (p, &b, s->stream), "computing costs");
  SD_CUDA_CHECK (sd_cuda_sgm (p, &b, s->stream), "aggregating costs");
  if (marks)
    SD_CUDA_CHECK (cudaEventRecord (marks[2], s->stream), "recording an event");
  SD_CUDA_CHECK (sd_cuda_wta (p, &b, s->stream), "choosing disparities");
  if (marks)
    SD_CUDA_CHECK (cudaEventRecord (marks[3], s->stream), "recording an event");
  return SD_OK;
}

/* One image from its luma on (the frame, or a band of it) to the checked
 * disparities: luma holds both w x h views packed; *disp gets the buffer
 * that holds the disparities, the confidence (when params->confidence)
 * goes to conf (device, packed); marks as in enqueue_sgm.  Only
 * enqueues. */
static SdStatus
enqueue_image (SdCudaPipeline * s, const SdParams * p, const uint8_t * luma,
    int w, int h, int16_t ** disp, uint8_t * conf, cudaEvent_t * marks,
    SdError * err)
{
  const size_t n = (size_t) w * h;
  const uint8_t *pre = luma;
  if (p->prefilter != SD_PREFILTER_NONE) {
    SD_CUDA_CHECK (sd_cuda_prefilter (p, luma, s->pre, s->pre_tmp, w, h,
            s->stream), "running the prefilter");
    pre = s->pre;
  }
  if (sd_params_uses_census (p))
    SD_CUDA_CHECK (sd_cuda_census (pre, s->census, w, h, p->census_window,
            s->stream), "computing census signatures");
  /* after the census: the map only feeds the absolute differences (as on
   * the CPU, common/cpu/cpu-backend.c).  The mapped right view goes into
   * s->pre beside the left: in place after a prefilter, else beside a
   * copy of the left (luma stays as it came) */
  if (s->brightness_map) {
    if (pre != s->pre)
      SD_CUDA_CHECK (cudaMemcpyAsync (s->pre, luma, n,
              cudaMemcpyDeviceToDevice, s->stream), "copying the left image");
    SD_CUDA_CHECK (sd_cuda_apply_brightness_map (s->brightness_map, pre + n,
            s->pre + n, n, s->stream), "matching the views' brightness");
    pre = s->pre;
  }
  if (p->algorithm != SD_ALGORITHM_SGM) {
    if (marks)
      SD_CUDA_CHECK (cudaEventRecord (marks[1], s->stream),
          "recording an event");
    const SdCudaReadOut read_out = { s->disp,
      p->confidence ? s->margin : NULL, s->right_key
    };
    if (p->algorithm == SD_ALGORITHM_HBP)
      SD_CUDA_CHECK (sd_cuda_hbp (p, pre, s->census, s->volume, &read_out, w, h,
              &s->bp_graph, s->stream), "propagating beliefs");
    else
      SD_CUDA_CHECK (sd_cuda_tiled_bp (p, pre, s->census, s->volume, &read_out,
              w, h, &s->info, &s->bp_graph, s->stream),
          "propagating beliefs over tiles");
    if (marks) {
      SD_CUDA_CHECK (cudaEventRecord (marks[2], s->stream),
          "recording an event");
      SD_CUDA_CHECK (cudaEventRecord (marks[3], s->stream),
          "recording an event");
    }
  } else {
    SdStatus st = enqueue_sgm (s, p, luma, pre, w, h, marks, err);
    if (st != SD_OK)
      return st;
  }
  SD_CUDA_CHECK (sd_cuda_check_median (p, s->disp, s->right_key,
          p->confidence ? s->margin : NULL, s->disp_tmp, conf, w, h,
          s->stream, disp), "checking disparities");
  return SD_OK;
}

/* Everything after luma extraction: s->luma holds both images, which are
 * rectified (when there are maps), give the right view's brightness map
 * (with match-brightness) and then are matched whole, in sgm's exact
 * bands (enqueue_sgm) or band by band (hbp and tiled-bp; sd-band.h: each
 * band an image of its own up to the median, its kept rows copied into
 * frame_disp), then filled and written as one frame; the output goes to
 * out (device, pitched), the confidence (when params->confidence) to conf
 * (device, packed).  Stage marks are taken only without bands.  Only
 * enqueues. */
SdStatus
sd_cuda_enqueue_stages (SdCudaPipeline * s, const SdParams * p, uint16_t * out,
    size_t out_pitch, uint8_t * conf, SdError * err)
{
  const int w = s->width, h = s->height;
  const size_t n = (size_t) w * h;
  const uint8_t *luma = s->luma;
  if (s->marks)
    SD_CUDA_CHECK (cudaEventRecord (s->marks[0], s->stream),
        "recording an event");
  if (s->rect_maps) {
    SD_CUDA_CHECK (sd_cuda_rectify (s->rect_maps, s->luma, s->rect_luma, w, h,
            s->stream), "rectifying the images");
    luma = s->rect_luma;
  }
  /* from the whole frame, so that every band sees the same map */
  if (s->brightness_map)
    SD_CUDA_CHECK (sd_cuda_brightness_map (luma, s->brightness_hist,
            s->brightness_map, w, h, s->stream),
        "mapping the views' brightness");
  const int bands =
      sd_cuda_exact_bands (p) ? 1 : sd_band_count (h, s->band_rows);
  int16_t *disp;
  if (bands == 1) {
    SdStatus st = enqueue_image (s, p, luma, w, h, &disp, conf,
        s->band_rows ? NULL : s->marks, err);
    if (st != SD_OK)
      return st;
  } else {
    disp = s->frame_disp;
    for (int k = 0; k < bands; k++) {
      const SdBand b = sd_band_get (h, s->band_rows, k);
      const size_t m = (size_t) w * b.in_height;
      for (int i = 0; i < 2; i++)
        SD_CUDA_CHECK (cudaMemcpyAsync (s->band_luma + i * m, luma + i * n +
                (size_t) b.in_y0 * w, m, cudaMemcpyDeviceToDevice,
                s->stream), "copying a band");
      int16_t *band_disp;
      SdStatus st = enqueue_image (s, p, s->band_luma, w, b.in_height,
          &band_disp, s->band_conf, NULL, err);
      if (st != SD_OK)
        return st;
      const size_t skip = (size_t) (b.keep_y0 - b.in_y0) * w;
      SD_CUDA_CHECK (cudaMemcpyAsync (s->frame_disp + (size_t) b.keep_y0 * w,
              band_disp + skip, (size_t) w * b.keep_height * 2,
              cudaMemcpyDeviceToDevice, s->stream),
          "copying a band's disparity");
      if (p->confidence)
        SD_CUDA_CHECK (cudaMemcpyAsync (conf + (size_t) b.keep_y0 * w,
                s->band_conf + skip, (size_t) w * b.keep_height,
                cudaMemcpyDeviceToDevice, s->stream),
            "copying a band's confidence");
    }
  }
  SD_CUDA_CHECK (sd_cuda_finish (p, disp, luma, conf, s->speckle, s->filled,
          out, out_pitch, w, h, s->stream),
      "filling holes and writing the output");
  if (s->marks)
    SD_CUDA_CHECK (cudaEventRecord (s->marks[4], s->stream),
        "recording an event");
  return SD_OK;
}
