/* Where a frame's buffers lie in the pipeline's one device block and one
 * pinned block, and the bands a frame too large for the device is matched
 * in (sd-band.h): chosen once per frame size and parameters, reallocated
 * only when the buffers need more than there is. */
#include <cuda_runtime.h>

#include "sd-cuda-pipeline.h"
#include "sd-cuda-hbp.h"
#include "sd-cuda-tiledbp.h"
#include "sd-band.h"
#include "sd-brightness.h"

static size_t
align_up (size_t v)
{
  return (v + 255) & ~(size_t) 255;
}

void
sd_cuda_release_buffers (SdCudaPipeline * s)
{
  if (s->dev_block)
    cudaFree (s->dev_block);
  if (s->host_block)
    cudaFreeHost (s->host_block);
  s->dev_block = s->host_block = NULL;
  s->dev_capacity = s->host_capacity = 0;
  s->width = s->height = 0;
}

/* sgm's bands are exact: only the volumes are cut into bands, and the
 * paths carry across their edges (sd-cuda-sgm.cu), so a frame in bands
 * gets the whole frame's bits; hbp's and tiled-bp's bands are images of
 * their own, with overlap (sd-band.h). */
bool
sd_cuda_exact_bands (const SdParams * p)
{
  return p->algorithm == SD_ALGORITHM_SGM;
}

/* The rows of the work buffers for band_rows output rows a band (0: the
 * whole frame's). */
static int
work_height (const SdParams * p, int h, int band_rows)
{
  return sd_cuda_exact_bands (p) ? h : sd_band_get (h, band_rows, 0).in_height;
}

/* The rows of the volumes. */
int
sd_cuda_volume_height (const SdParams * p, int h, int band_rows)
{
  return sd_cuda_exact_bands (p) ? sd_band_get (h, band_rows, 0).keep_height :
      sd_band_get (h, band_rows, 0).in_height;
}

/* sgm's directions that go down and up the rows, for the carried rows. */
void
sd_cuda_sgm_vertical_directions (const SdParams * p, int *down, int *up)
{
  *down = *up = 0;
  for (int i = 0; i < p->paths; i++) {
    const int dy = sd_cuda_sgm_direction_dy (i);
    *down += dy > 0;
    *up += dy < 0;
  }
}

static size_t
carry_bytes (const SdParams * p, int w, int h, int band_rows)
{
  const int bands = sd_band_count (h, band_rows);
  if (!sd_cuda_exact_bands (p) || bands == 1)
    return 0;
  int down, up;
  sd_cuda_sgm_vertical_directions (p, &down, &up);
  return sd_cuda_sgm_carry_row_bytes (p, w) * (2 * down +
      (size_t) (bands - 1) * up);
}

/* Where the buffers lie in the device block for w x h frames in bands of
 * band_rows output rows (0: whole, no band buffers); the volumes hold a
 * band's rows, and so do hbp's and tiled-bp's work buffers.  The slots
 * come first: their place depends on the frame's size alone, so a pair in
 * flight keeps its buffers (its download may still run) when the next
 * pair's parameters move the others. */
typedef struct
{
  size_t slot, pre, tmp, census, volume, cost, disp, disp_tmp, right,
      margin, rect, hist, map, band_luma, band_conf, frame_disp, carry,
      speckle, filled, total;
} Layout;

/* The strip of SGM's row aggregation for these parameters (0: not used),
 * the runtime asked only where the parameters want it, once a width. */
int
sd_cuda_pipeline_rows_strip (SdCudaPipeline * s, const SdParams * p, int w)
{
  if (!sd_cuda_sgm_rows_wanted (p, w))
    return 0;
  if (w != s->rows_width) {
    s->rows_strip = sd_cuda_sgm_rows_strip (&s->info, w);
    s->rows_width = w;
  }
  return s->rows_strip;
}

static Layout
plan_layout (SdCudaPipeline * s, const SdParams * p, int w, int h,
    int band_rows)
{
  const int work_h = work_height (p, h, band_rows);
  const int vol_h = sd_cuda_volume_height (p, h, band_rows);
  const size_t n = (size_t) w * h, m = (size_t) w * work_h;
  /* the aggregation scratch: SGM's path volumes or a BP workspace */
  const bool sgm = p->algorithm == SD_ALGORITHM_SGM;
  const size_t volume = sgm ? sd_cuda_sgm_volume_bytes (p, w, vol_h,
      sd_cuda_pipeline_rows_strip (s, p, w)) :
      p->algorithm == SD_ALGORITHM_HBP ? sd_cuda_hbp_workspace_bytes (p, w,
      vol_h) : sd_cuda_tiled_bp_workspace_bytes (p, w, vol_h);
  Layout l;
  l.slot = align_up (2 * n * 4) + align_up (2 * n) + align_up (n * 2) +
      align_up (n);
  size_t off = SD_ENGINE_MAX_IN_FLIGHT * l.slot;
  l.pre = off;
  off += align_up (2 * m);
  l.tmp = off;
  off += align_up (2 * m);
  l.census = off;
  off += align_up (2 * m * sizeof (uint64_t));
  l.volume = off;
  off += align_up (volume);
  l.cost = off;
  if (sgm)
    off += align_up (sd_cuda_cost_volume_bytes (p, w, vol_h));
  l.disp = off;
  off += align_up (m * 2);
  l.disp_tmp = off;
  off += align_up (m * 2);
  l.right = off;
  off += align_up (m * 4);
  l.margin = off;
  off += align_up (m);
  l.rect = off;
  if (s->rect_maps)
    off += align_up (2 * n);
  l.hist = off;
  if (sd_params_matches_brightness (p))
    off += align_up (2 * SD_BRIGHTNESS_LEVELS * sizeof (uint32_t));
  l.map = off;
  if (sd_params_matches_brightness (p))
    off += align_up (SD_BRIGHTNESS_LEVELS);
  /* a band's image may be as tall as the frame (a short frame in bands
   * shorter than their overlap): whether there are bands decides */
  const bool bands = sd_band_count (h, band_rows) > 1
      && !sd_cuda_exact_bands (p);
  l.band_luma = off;
  if (bands)
    off += align_up (2 * m);
  l.band_conf = off;
  if (bands)
    off += align_up (m);
  l.frame_disp = off;
  if (bands)
    off += align_up (n * 2);
  l.carry = off;
  off += carry_bytes (p, w, h, band_rows);
  /* speckles span bands: their search is the whole frame's */
  l.speckle = off;
  if (sd_params_fill_holes (p))
    off += align_up (sd_cuda_speckle_bytes (w, h));
  /* the guided median reads the filled frame while it writes the output */
  l.filled = off;
  if (sd_params_fill_holes (p) && p->guided_median)
    off += align_up (n * 2);
  l.total = off;
  return l;
}

/* A frame for plan_bytes */
typedef struct
{
  SdCudaPipeline *s;
  const SdParams *p;
  int width, height;
} PlanFrame;

/* SdBandBytes: the pipeline's layout in bands of band_rows */
static size_t
plan_bytes (int band_rows, void *user)
{
  const PlanFrame *f = (const PlanFrame *) user;
  return plan_layout (f->s, f->p, f->width, f->height, band_rows).total;
}

/* params->band_rows, or when it is 0: no bands when the whole frame fits
 * what the pipeline may hold (params->max_device_memory, or 95 % of what
 * is free with this pipeline's own block counted free), else as few bands
 * as fit, of equal rows (the last one may keep fewer).  Chosen once per
 * frame size and parameters. */
static SdStatus
choose_band_rows (SdCudaPipeline * s, const SdParams * p, int w, int h,
    SdError * err)
{
  if (p->band_rows > 0) {
    s->band_rows = sd_band_count (h, p->band_rows) > 1 ? p->band_rows : 0;
    s->whole_bytes = 0;
    const size_t bytes = plan_layout (s, p, w, h, s->band_rows).total;
    if (p->max_device_memory && bytes > (size_t) p->max_device_memory << 20)
      return sd_error_set (err, SD_ERROR_OUT_OF_MEMORY,
          "band-rows %d on %dx%d needs %zu MB, more than max-device-memory "
          "%d MB", p->band_rows, w, h, bytes >> 20, p->max_device_memory);
    return SD_OK;
  }
  const size_t whole = plan_layout (s, p, w, h, 0).total;
  if (w == s->width && h == s->height && whole == s->whole_bytes
      && p->max_device_memory == s->chosen_max_memory)
    return SD_OK;
  size_t limit = (size_t) p->max_device_memory << 20;
  if (!limit) {
    size_t free_b = 0, total_b = 0;
    SD_CUDA_CHECK (cudaMemGetInfo (&free_b, &total_b),
        "reading the free memory");
    limit = (free_b + s->dev_capacity) / 20 * 19;
  }
  PlanFrame frame = { s, p, w, h };
  int rows;
  const SdStatus st = sd_band_rows_to_fit (p, w, h, limit, "GPU memory",
      plan_bytes, &frame, &rows, err);
  if (st != SD_OK)
    return st;
  s->band_rows = rows;
  s->whole_bytes = whole;
  s->chosen_max_memory = p->max_device_memory;
  return SD_OK;
}

/* One device allocation and one pinned allocation, carved into the
 * buffers for this frame's size, parameters and bands; reallocated only
 * when they need more than there is. */
SdStatus
sd_cuda_ensure_buffers (SdCudaPipeline * s, const SdParams * p, int w, int h,
    SdError * err)
{
  SdStatus st = choose_band_rows (s, p, w, h, err);
  if (st != SD_OK)
    return st;
  const size_t n = (size_t) w * h;
  const Layout l = plan_layout (s, p, w, h, s->band_rows);
  const size_t dev_bytes = l.total;
  const size_t slot_bytes = align_up (2 * n * 4) + align_up (n * 2) +
      align_up (n);
  const size_t host_bytes = SD_ENGINE_MAX_IN_FLIGHT * slot_bytes;

  if (dev_bytes > s->dev_capacity) {
    if (s->dev_block) {
      sd_cuda_synchronize (s);
      cudaFree (s->dev_block);
    }
    s->dev_block = NULL;
    s->dev_capacity = 0;
    cudaError_t e = cudaMalloc (&s->dev_block, dev_bytes);
    if (e != cudaSuccess) {
      cudaGetLastError ();
      size_t free_b = 0, total_b = 0;
      cudaMemGetInfo (&free_b, &total_b);
      s->dev_block = NULL;
      s->width = s->height = 0;
      return sd_error_set (err, SD_ERROR_OUT_OF_MEMORY,
          "out of GPU memory: %s on %dx%d with %d disparities needs %zu "
          "MB, %zu MB free of %zu MB (%s); band-rows or max-device-memory "
          "make it smaller", sd_enum_to_nick (sd_algorithm_entries,
              p->algorithm), w, h, p->num_disparities, dev_bytes >> 20,
          free_b >> 20, total_b >> 20, cudaGetErrorString (e));
    }
    s->dev_capacity = dev_bytes;
  }
  if (host_bytes > s->host_capacity) {
    if (s->host_block) {
      sd_cuda_synchronize (s);
      cudaFreeHost (s->host_block);
    }
    s->host_block = NULL;
    s->host_capacity = 0;
    cudaError_t e = cudaMallocHost (&s->host_block, host_bytes);
    if (e != cudaSuccess) {
      cudaGetLastError ();
      s->width = s->height = 0;
      return sd_error_set (err, SD_ERROR_OUT_OF_MEMORY,
          "out of pinned host memory: %dx%d images need %zu MB (%s)", w, h,
          host_bytes >> 20, cudaGetErrorString (e));
    }
    s->host_capacity = host_bytes;
  }
  uint8_t *d = (uint8_t *) s->dev_block;
  s->pre = d + l.pre;
  s->pre_tmp = d + l.tmp;
  s->census = (uint64_t *) (d + l.census);
  s->volume = d + l.volume;
  s->cost_volume = p->algorithm == SD_ALGORITHM_SGM ? d + l.cost : NULL;
  s->disp = (int16_t *) (d + l.disp);
  s->disp_tmp = (int16_t *) (d + l.disp_tmp);
  s->right_key = (uint32_t *) (d + l.right);
  s->margin = d + l.margin;
  s->rect_luma = s->rect_maps ? d + l.rect : NULL;
  const bool matched = sd_params_matches_brightness (p);
  s->brightness_hist = matched ? (uint32_t *) (d + l.hist) : NULL;
  s->brightness_map = matched ? d + l.map : NULL;
  const bool image_bands = s->band_rows && !sd_cuda_exact_bands (p);
  s->band_luma = image_bands ? d + l.band_luma : NULL;
  s->band_conf = image_bands ? d + l.band_conf : NULL;
  s->frame_disp = image_bands ? (int16_t *) (d + l.frame_disp) : NULL;
  s->carry = s->band_rows
      && sd_cuda_exact_bands (p) ? (uint16_t *) (d + l.carry) : NULL;
  s->speckle = sd_params_fill_holes (p) ? d + l.speckle : NULL;
  s->filled = sd_params_fill_holes (p) && p->guided_median ?
      (int16_t *) (d + l.filled) : NULL;
  for (int i = 0; i < SD_ENGINE_MAX_IN_FLIGHT; i++) {
    SdCudaSlot *slot = &s->slots[i];
    uint8_t *hb = (uint8_t *) s->host_block + i * slot_bytes;
    uint8_t *db = d + i * l.slot;
    slot->stage_in = hb;
    slot->stage_out = (uint16_t *) (hb + align_up (2 * n * 4));
    slot->stage_conf = hb + align_up (2 * n * 4) + align_up (n * 2);
    slot->raw = db;
    slot->luma = db + align_up (2 * n * 4);
    slot->out = (uint16_t *) (db + align_up (2 * n * 4) + align_up (2 * n));
    slot->conf = db + align_up (2 * n * 4) + align_up (2 * n) +
        align_up (n * 2);
  }
  s->width = w;
  s->height = h;
  return SD_OK;
}
