/* The CUDA SdBackend: one stream and one device allocation per engine, pinned
 * staging for the host copies, the stages of sd-cuda-*.cu in the order of
 * the CPU reference (common/cpu/cpu-backend.c).
 *
 * Every entry point selects the engine's device first: the element may call
 * from different streaming threads, and cudaSetDevice is per thread.  A
 * pipeline made in the caller's current context (SD_DEVICE_CURRENT_CONTEXT,
 * GStreamer's GstCudaContext) selects nothing: its caller makes that
 * context current around every call, and cudaSetDevice would replace it
 * with the device's primary context. */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sd-cuda.h"
#include "sd-cuda-hbp.h"
#include "sd-cuda-tiledbp.h"
#include "sd-cuda-internal.h"
#include "sd-band.h"


/* One pair in flight: its planes and its disparity on the host (pinned)
 * and on the device, and the events that order its copies, which run on
 * their own streams, against its kernels: uploaded (upload -> kernels),
 * computed (kernels -> download), done (download -> the host).  The
 * kernels' buffers are shared: one stream runs them pair after pair. */
typedef struct
{
  uint8_t *stage_in;            /* pinned: 2 planes of up to 4 bytes a pixel */
  uint16_t *stage_out;          /* pinned */
  uint8_t *stage_conf;          /* pinned */
  uint8_t *raw;                 /* device: the planes as they came */
  uint8_t *luma;                /* device: 2 packed planes: left, right */
  uint16_t *out;                /* device */
  uint8_t *conf;                /* device: the confidence, when asked for */
  cudaEvent_t uploaded, computed, done;
  int width, height;
} SdCudaSlot;

struct SdCudaPipeline
{
  int device;
  bool external;                /* runs in the caller's current context */
  SdCudaDeviceInfo info;
  char device_name[256];
  cudaStream_t stream;          /* the kernels */
  /* the copies of the slots, so that they overlap the kernels of the other
   * slot */
  cudaStream_t upload, download;
  /* SGM's horizontal directions, beside the others (sd-cuda-sgm.cu) */
  cudaStream_t aside;
  cudaEvent_t fork, join;
  /* sd_cuda_sgm_rows_strip() of rows_width, asked once */
  int rows_width, rows_strip;
  cudaEvent_t ev[2];
  cudaEvent_t *marks;           /* stage boundaries, when timing stages */

  /* the size the buffers are carved for; with bands (band_rows, output
   * rows a band, sd-band.h, not 0) the volumes hold a band's rows, and so
   * do the work buffers (pre to margin) of hbp and tiled-bp, whose bands
   * are images of their own */
  int width, height, band_rows;
  /* what chose band_rows when the parameters left it to the pipeline: the
   * bytes the frame needs whole (0: not chosen) and the bound, so that a
   * frame size keeps its bands (and its output) from one pair to the next */
  size_t whole_bytes;
  int chosen_max_memory;

  void *dev_block;
  size_t dev_capacity;
  void *host_block;             /* pinned */
  size_t host_capacity;

  /* carved out of dev_block */
  uint8_t *luma;                /* the luma of the pair being enqueued: its
                                 * slot's */
  uint8_t *pre;
  uint8_t *pre_tmp;
  uint64_t *census;             /* 2 planes */
  void *volume;
  void *cost_volume;
  int16_t *disp, *disp_tmp;
  uint8_t *margin;
  uint32_t *right_key;
  /* sgm in bands: each direction's carried rows (SdSgmCarry), the
   * downward ones twice (the band before's, this band's), the upward ones
   * once for every band edge */
  uint16_t *carry;
  /* their staging carved out of host_block, the rest out of dev_block */
  SdCudaSlot slots[SD_ENGINE_MAX_IN_FLIGHT];
  SdCudaGraph *bp_graph;        /* hbp's or tiled-bp's launches */
  /* rectification: both views' maps on the device (NULL: none), and the
   * rectified luma carved out of dev_block */
  int32_t *rect_maps;
  uint8_t *rect_luma;
  /* with bands: a band's luma (both views) and confidence, and the frame's
   * disparities, put together from the bands' kept rows */
  uint8_t *band_luma;
  uint8_t *band_conf;
  int16_t *frame_disp;
  void *speckle;                /* with fill-holes: sd-cuda-speckle.cu's */
  int16_t *filled;              /* with fill-holes and the guided median */
};

static SdStatus
cuda_fail (SdError * err, cudaError_t e, const char *what)
{
  SdStatus st = e == cudaErrorMemoryAllocation ? SD_ERROR_OUT_OF_MEMORY :
      e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ?
      SD_ERROR_NO_DEVICE : SD_ERROR_BACKEND;
  return sd_error_set (err, st, "CUDA error while %s: %s (%s)", what,
      cudaGetErrorString (e), cudaGetErrorName (e));
}

#define CHECK(call, what)                                  \
  do {                                                     \
    cudaError_t e_ = (call);                               \
    if (e_ != cudaSuccess)                                 \
      return cuda_fail (err, e_, what);                    \
  } while (0)

static SdStatus
select_device (SdCudaPipeline * s, SdError * err)
{
  if (!s->external)
    CHECK (cudaSetDevice (s->device), "selecting the device");
  return SD_OK;
}

static size_t
align_up (size_t v)
{
  return (v + 255) & ~(size_t) 255;
}

/* Before the blocks are freed: no copy or kernel may still use them. */
static void
synchronize_streams (SdCudaPipeline * s)
{
  cudaStreamSynchronize (s->upload);
  cudaStreamSynchronize (s->stream);
  cudaStreamSynchronize (s->download);
}

static void
release_buffers (SdCudaPipeline * s)
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
static bool
exact_bands (const SdParams * p)
{
  return p->algorithm == SD_ALGORITHM_SGM;
}

/* The rows of the work buffers for band_rows output rows a band (0: the
 * whole frame's). */
static int
work_height (const SdParams * p, int h, int band_rows)
{
  return exact_bands (p) ? h : sd_band_get (h, band_rows, 0).in_height;
}

/* The rows of the volumes. */
static int
volume_height (const SdParams * p, int h, int band_rows)
{
  return exact_bands (p) ? sd_band_get (h, band_rows, 0).keep_height :
      sd_band_get (h, band_rows, 0).in_height;
}

/* sgm's directions that go down and up the rows, for the carried rows. */
static void
count_vertical_directions (const SdParams * p, int *down, int *up)
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
  if (!exact_bands (p) || bands == 1)
    return 0;
  int down, up;
  count_vertical_directions (p, &down, &up);
  return sd_cuda_sgm_carry_row_bytes (p, w) * (2 * down +
      (size_t) (bands - 1) * up);
}

/* Where the buffers lie in the device block for w x h frames in bands of
 * band_rows output rows (0: whole, no band buffers); the volumes hold a
 * band's rows, and so do hbp's and tiled-bp's work buffers.  The slots come first: their place depends on the frame's
 * size alone, so a pair in flight keeps its buffers (its download may still
 * run) when the next pair's parameters move the others. */
typedef struct
{
  size_t slot, pre, tmp, census, volume, cost, disp, disp_tmp, right,
      margin, rect, band_luma, band_conf, frame_disp, carry, speckle,
      filled, total;
} Layout;

/* The strip of SGM's row aggregation for these parameters (0: not used),
 * the runtime asked only where the parameters want it, once a width. */
static int
rows_strip (SdCudaPipeline * s, const SdParams * p, int w)
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
  const int vol_h = volume_height (p, h, band_rows);
  const size_t n = (size_t) w * h, m = (size_t) w * work_h;
  /* the aggregation scratch: SGM's path volumes or a BP workspace */
  const bool sgm = p->algorithm == SD_ALGORITHM_SGM;
  const size_t volume = sgm ? sd_cuda_sgm_volume_bytes (p, w, vol_h,
      rows_strip (s, p, w)) :
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
  /* a band's image may be as tall as the frame (a short frame in bands
   * shorter than their overlap): whether there are bands decides */
  const bool bands = sd_band_count (h, band_rows) > 1 && !exact_bands (p);
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
    CHECK (cudaMemGetInfo (&free_b, &total_b), "reading the free memory");
    limit = (free_b + s->dev_capacity) / 20 * 19;
  }
  int rows = 0;
  if (whole > limit) {
    /* the fewest bands that fit, each made as short as their count allows
     * (the last band then keeps about as many rows as the others, instead
     * of computing a whole band's rows for a few).  Not a search on the
     * rows: sgm's carried rows grow with the count of bands as its volumes
     * shrink, so its bytes are least at some middle count. */
    size_t least = whole;
    int least_rows = 0;
    for (int count = 2; count <= h && !rows; count++) {
      const int r = (h + count - 1) / count;
      const size_t bytes = plan_layout (s, p, w, h, r).total;
      if (bytes <= limit)
        rows = r;
      else if (bytes < least) {
        least = bytes;
        least_rows = r;
      }
    }
    if (!rows)
      return sd_error_set (err, SD_ERROR_OUT_OF_MEMORY,
          "out of GPU memory: %s on %dx%d with %d disparities needs %zu MB "
          "even in bands of %d rows, and %zu MB may be used%s",
          sd_enum_to_nick (sd_algorithm_entries, p->algorithm), w, h,
          p->num_disparities, least >> 20, least_rows, limit >> 20,
          p->max_device_memory ? " (max-device-memory)" : "");
  }
  s->band_rows = rows;
  s->whole_bytes = whole;
  s->chosen_max_memory = p->max_device_memory;
  return SD_OK;
}

/* One device allocation and one pinned allocation, carved into the
 * buffers for this frame's size, parameters and bands; reallocated only
 * when they need more than there is. */
static SdStatus
ensure_buffers (SdCudaPipeline * s, const SdParams * p, int w, int h,
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
      synchronize_streams (s);
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
      synchronize_streams (s);
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
  const bool image_bands = s->band_rows && !exact_bands (p);
  s->band_luma = image_bands ? d + l.band_luma : NULL;
  s->band_conf = image_bands ? d + l.band_conf : NULL;
  s->frame_disp = image_bands ? (int16_t *) (d + l.frame_disp) : NULL;
  s->carry = s->band_rows && exact_bands (p) ? (uint16_t *) (d + l.carry) :
      NULL;
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
  b.rows_strip = rows_strip (s, p, w);
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

/* SGM in exact bands (exact_bands()): the costs and paths of one band of
 * rows at a time, each direction's paths carried across the band edges
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
  count_vertical_directions (p, &down, &up);
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
      CHECK (sd_cuda_cost_volume (p, &b, s->stream), "computing costs");
      CHECK (sd_cuda_sgm (p, &b, s->stream), "aggregating costs");
      if (!up_pass)
        CHECK (sd_cuda_wta (p, &b, s->stream), "choosing disparities");
    }
  }
  return SD_OK;
}

/* Census (when used), SGM aggregation and winner-takes-all on the
 * prefiltered w x h images pre (left, then right), whole or in exact
 * bands; marks (NULL: none) take the stage boundaries.  Only enqueues. */
static SdStatus
enqueue_sgm (SdCudaPipeline * s, const SdParams * p, const uint8_t * luma,
    const uint8_t * pre, int w, int h, cudaEvent_t * marks, SdError * err)
{
  if (sd_params_uses_census (p))
    CHECK (sd_cuda_census (pre, s->census, w, h, p->census_window,
            s->stream), "computing census signatures");
  if (s->band_rows)
    return enqueue_sgm_bands (s, p, luma, pre, w, h, err);
  SdCudaSgmBuffers b = sgm_buffers (s, p, luma, pre, w, h, 0, h);
  if (marks)
    CHECK (cudaEventRecord (marks[1], s->stream), "recording an event");
  CHECK (sd_cuda_cost_volume (p, &b, s->stream), "computing costs");
  CHECK (sd_cuda_sgm (p, &b, s->stream), "aggregating costs");
  if (marks)
    CHECK (cudaEventRecord (marks[2], s->stream), "recording an event");
  CHECK (sd_cuda_wta (p, &b, s->stream), "choosing disparities");
  if (marks)
    CHECK (cudaEventRecord (marks[3], s->stream), "recording an event");
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
  const uint8_t *pre = luma;
  if (p->prefilter != SD_PREFILTER_NONE) {
    CHECK (sd_cuda_prefilter (p, luma, s->pre, s->pre_tmp, w, h,
            s->stream), "running the prefilter");
    pre = s->pre;
  }
  if (p->algorithm != SD_ALGORITHM_SGM) {
    if (marks)
      CHECK (cudaEventRecord (marks[1], s->stream), "recording an event");
    if (sd_params_uses_census (p))
      CHECK (sd_cuda_census (pre, s->census, w, h, p->census_window,
              s->stream), "computing census signatures");
    const SdCudaReadOut read_out = { s->disp,
      p->confidence ? s->margin : NULL, s->right_key
    };
    if (p->algorithm == SD_ALGORITHM_HBP)
      CHECK (sd_cuda_hbp (p, pre, s->census, s->volume, &read_out, w, h,
              &s->bp_graph, s->stream), "propagating beliefs");
    else
      CHECK (sd_cuda_tiled_bp (p, pre, s->census, s->volume, &read_out, w,
              h, &s->info, &s->bp_graph, s->stream),
          "propagating beliefs over tiles");
    if (marks) {
      CHECK (cudaEventRecord (marks[2], s->stream), "recording an event");
      CHECK (cudaEventRecord (marks[3], s->stream), "recording an event");
    }
  } else {
    SdStatus st = enqueue_sgm (s, p, luma, pre, w, h, marks, err);
    if (st != SD_OK)
      return st;
  }
  CHECK (sd_cuda_check_median (p, s->disp, s->right_key,
          p->confidence ? s->margin : NULL, s->disp_tmp, conf, w, h,
          s->stream, disp), "checking disparities");
  return SD_OK;
}

/* Everything after luma extraction: s->luma holds both images, which are
 * rectified (when there are maps) and then matched whole, in sgm's exact
 * bands (enqueue_sgm) or band by band (hbp and tiled-bp; sd-band.h: each
 * band an image of its own up to the median, its kept rows copied into
 * frame_disp), then filled and written as one frame; the output goes to
 * out (device, pitched), the confidence (when params->confidence) to conf
 * (device, packed).  Stage marks are taken only without bands.  Only
 * enqueues. */
static SdStatus
enqueue_pipeline (SdCudaPipeline * s, const SdParams * p, uint16_t * out,
    size_t out_pitch, uint8_t * conf, SdError * err)
{
  const int w = s->width, h = s->height;
  const size_t n = (size_t) w * h;
  const uint8_t *luma = s->luma;
  if (s->marks)
    CHECK (cudaEventRecord (s->marks[0], s->stream), "recording an event");
  if (s->rect_maps) {
    CHECK (sd_cuda_rectify (s->rect_maps, s->luma, s->rect_luma, w, h,
            s->stream), "rectifying the images");
    luma = s->rect_luma;
  }
  const int bands = exact_bands (p) ? 1 : sd_band_count (h, s->band_rows);
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
        CHECK (cudaMemcpyAsync (s->band_luma + i * m, luma + i * n +
                (size_t) b.in_y0 * w, m, cudaMemcpyDeviceToDevice,
                s->stream), "copying a band");
      int16_t *band_disp;
      SdStatus st = enqueue_image (s, p, s->band_luma, w, b.in_height,
          &band_disp, s->band_conf, NULL, err);
      if (st != SD_OK)
        return st;
      const size_t skip = (size_t) (b.keep_y0 - b.in_y0) * w;
      CHECK (cudaMemcpyAsync (s->frame_disp + (size_t) b.keep_y0 * w,
              band_disp + skip, (size_t) w * b.keep_height * 2,
              cudaMemcpyDeviceToDevice, s->stream),
          "copying a band's disparity");
      if (p->confidence)
        CHECK (cudaMemcpyAsync (conf + (size_t) b.keep_y0 * w,
                s->band_conf + skip, (size_t) w * b.keep_height,
                cudaMemcpyDeviceToDevice, s->stream),
            "copying a band's confidence");
    }
  }
  CHECK (sd_cuda_finish (p, disp, luma, conf, s->speckle, s->filled, out,
          out_pitch, w, h, s->stream),
      "filling holes and writing the output");
  if (s->marks)
    CHECK (cudaEventRecord (s->marks[4], s->stream), "recording an event");
  return SD_OK;
}

/* Whether this backend has kernels for params: every sgm and hbp
 * setting, and the tiled-bp ones whose tile fits in a block's shared
 * memory on the current device. */
static bool
cuda_supports (const SdParams * p, SdError * err)
{
  if (p->algorithm != SD_ALGORITHM_TILED_BP)
    return true;
  int device = 0, max_smem = 0;
  if (cudaGetDevice (&device) != cudaSuccess
      || cudaDeviceGetAttribute (&max_smem,
          cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess) {
    sd_error_set (err, SD_ERROR_NO_DEVICE,
        "the CUDA backend could not read the device's shared memory size");
    return false;
  }
  return sd_cuda_tiled_bp_fits (p, max_smem, err);
}

/* What cuda_supports checks, against the engine's own device.  out may be
 * NULL: a submitted pair's output comes with its collect. */
static SdStatus
check_input (const SdCudaPipeline * s, const SdParams * p,
    const SdPlane * left, const SdPlane * right, const SdPlane * out,
    SdError * err)
{
  if (p->algorithm == SD_ALGORITHM_TILED_BP
      && !sd_cuda_tiled_bp_fits (p, s->info.max_smem_optin, err))
    return err ? err->status : SD_ERROR_INVALID_ARGUMENT;
  if (left->width != right->width || left->height != right->height
      || (out && (out->width != left->width || out->height != left->height)))
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "the left, right and output planes must have the same size");
  if (left->format == SD_PIXEL_FLOAT || right->format == SD_PIXEL_FLOAT
      || (out && out->format != SD_PIXEL_GRAY16))
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "the CUDA backend takes 8-bit, 16-bit or RGB planes in and a "
        "GRAY16 plane out");
  return SD_OK;
}

/* Planes to the slot's luma.  Host planes: rows into its pinned staging,
 * one copy each on the upload stream, luma extraction (formats other than
 * GRAY8) on the kernels' stream once the copies are done.  Device planes
 * (device set): luma extraction straight from them, on the kernels'
 * stream. */
static SdStatus
enqueue_upload (SdCudaPipeline * s, SdCudaSlot * slot, const SdPlane * left,
    const SdPlane * right, bool device, SdError * err)
{
  const int w = s->width, h = s->height;
  const size_t n = (size_t) w * h;
  const SdPlane *planes[2] = { left, right };
  for (int i = 0; i < 2; i++) {
    const SdPlane *pl = planes[i];
    if (device)
      continue;
    const size_t row_bytes = (size_t) w *
        sd_pixel_layout (pl->format)->bytes_per_pixel;
    uint8_t *stage = slot->stage_in + i * n * 4;
    if (pl->stride == row_bytes)
      memcpy (stage, pl->data, row_bytes * h);
    else
      for (int y = 0; y < h; y++)
        memcpy (stage + y * row_bytes, sd_plane_row (pl, y), row_bytes);
    CHECK (cudaMemcpyAsync (pl->format == SD_PIXEL_GRAY8 ?
            slot->luma + i * n : slot->raw + i * n * 4, stage,
            row_bytes * h, cudaMemcpyHostToDevice, s->upload),
        "uploading an image");
  }
  CHECK (cudaEventRecord (slot->uploaded, s->upload), "recording an event");
  CHECK (cudaStreamWaitEvent (s->stream, slot->uploaded, 0),
      "ordering the upload");
  for (int i = 0; i < 2; i++) {
    const SdPlane *pl = planes[i];
    if (device)
      CHECK (sd_cuda_luma (pl->data, pl->stride, pl->format,
              slot->luma + i * n, w, h, s->stream), "extracting luma");
    else if (pl->format != SD_PIXEL_GRAY8)
      CHECK (sd_cuda_luma (slot->raw + i * n * 4, (size_t) w *
              sd_pixel_layout (pl->format)->bytes_per_pixel, pl->format,
              slot->luma + i * n, w, h, s->stream), "extracting luma");
  }
  return SD_OK;
}

/* Host planes (device planes when device is set) in, disparity into the
 * slot's pinned staging; only enqueues.  The slot must be free: its
 * staging is not read by earlier work. */
static SdStatus
submit_pair (SdCudaPipeline * s, int slot_index, const SdParams * p,
    const SdPlane * left, const SdPlane * right, bool device, bool timed,
    SdError * err)
{
  SdCudaSlot *slot = &s->slots[slot_index];
  SdStatus st;
  if ((st = check_input (s, p, left, right, NULL, err)) != SD_OK
      || (st = select_device (s, err)) != SD_OK
      || (st = ensure_buffers (s, p, left->width, left->height, err))
      != SD_OK)
    return st;
  const int w = s->width, h = s->height;
  s->luma = slot->luma;
  if (timed)
    CHECK (cudaEventRecord (s->ev[0], s->upload), "recording an event");
  if ((st = enqueue_upload (s, slot, left, right, device, err)) != SD_OK
      || (st = enqueue_pipeline (s, p, slot->out, (size_t) w * 2,
              slot->conf, err)) != SD_OK)
    return st;
  CHECK (cudaEventRecord (slot->computed, s->stream), "recording an event");
  CHECK (cudaStreamWaitEvent (s->download, slot->computed, 0),
      "ordering the download");
  CHECK (cudaMemcpyAsync (slot->stage_out, slot->out, (size_t) w * h * 2,
          cudaMemcpyDeviceToHost, s->download), "downloading the disparity");
  if (p->confidence)
    CHECK (cudaMemcpyAsync (slot->stage_conf, slot->conf, (size_t) w * h,
            cudaMemcpyDeviceToHost, s->download),
        "downloading the confidence");
  if (timed)
    CHECK (cudaEventRecord (s->ev[1], s->download), "recording an event");
  CHECK (cudaEventRecord (slot->done, s->download), "recording an event");
  slot->width = w;
  slot->height = h;
  return SD_OK;
}

/* Waits for the slot's pair and copies its disparity to out and its
 * confidence to conf (each when not NULL, a host plane of the pair's
 * size; conf only for a pair submitted with params->confidence). */
static SdStatus
collect_host (SdCudaPipeline * s, int slot_index, SdPlane * out,
    SdPlane * conf, SdError * err)
{
  const SdCudaSlot *slot = &s->slots[slot_index];
  SdStatus st = select_device (s, err);
  if (st != SD_OK)
    return st;
  CHECK (cudaEventSynchronize (slot->done), "running the pipeline");
  if (out)
    for (int y = 0; y < slot->height; y++)
      memcpy (sd_plane_row (out, y), slot->stage_out +
          (size_t) y * slot->width, (size_t) slot->width * 2);
  if (conf)
    for (int y = 0; y < slot->height; y++)
      memcpy (sd_plane_row (conf, y), slot->stage_conf +
          (size_t) y * slot->width, (size_t) slot->width);
  return SD_OK;
}

static SdStatus
process_host (SdCudaPipeline * s, const SdParams * p, const SdPlane * left,
    const SdPlane * right, SdPlane * out, bool timed, SdError * err)
{
  SdStatus st = check_input (s, p, left, right, out, err);
  if (st == SD_OK)
    st = submit_pair (s, 0, p, left, right, false, timed, err);
  return st == SD_OK ? collect_host (s, 0, out, NULL, err) : st;
}

static SdStatus
enqueue_device (SdCudaPipeline * s, const SdParams * p, const SdPlane * left,
    const SdPlane * right, SdPlane * out, SdError * err)
{
  const int w = s->width, h = s->height;
  const SdPlane *planes[2] = { left, right };
  s->luma = s->slots[0].luma;
  for (int i = 0; i < 2; i++)
    CHECK (sd_cuda_luma (planes[i]->data, planes[i]->stride,
            planes[i]->format, s->luma + (size_t) i * w * h, w, h,
            s->stream), "extracting luma");
  return enqueue_pipeline (s, p, (uint16_t *) out->data, out->stride,
      s->slots[0].conf, err);
}

/* The streams of the copies, apart from the kernels' (copies on the
 * kernels' stream took the element's 1080p rate from 315 to 302 pairs/s:
 * docs/performance.md). */
static cudaError_t
create_copy_streams (SdCudaPipeline * s)
{
  cudaStream_t up, down;
  cudaError_t e;
  s->upload = s->download = s->stream;
  if ((e = cudaStreamCreateWithFlags (&up, cudaStreamNonBlocking))
      != cudaSuccess)
    return e;
  s->upload = up;
  if ((e = cudaStreamCreateWithFlags (&down, cudaStreamNonBlocking))
      != cudaSuccess)
    return e;
  s->download = down;
  return cudaSuccess;
}

/* The timing events and each slot's; stops at the first failure. */
static cudaError_t
create_events (SdCudaPipeline * s)
{
  cudaError_t e = cudaEventCreate (&s->ev[0]);
  if (e == cudaSuccess)
    e = cudaEventCreate (&s->ev[1]);
  if (e == cudaSuccess)
    e = cudaEventCreateWithFlags (&s->fork, cudaEventDisableTiming);
  if (e == cudaSuccess)
    e = cudaEventCreateWithFlags (&s->join, cudaEventDisableTiming);
  for (int i = 0; i < SD_ENGINE_MAX_IN_FLIGHT; i++) {
    cudaEvent_t *slot_events[3] = { &s->slots[i].uploaded,
      &s->slots[i].computed, &s->slots[i].done
    };
    for (int k = 0; k < 3 && e == cudaSuccess; k++)
      e = cudaEventCreateWithFlags (slot_events[k], cudaEventDisableTiming);
  }
  return e;
}

/* Those create_events made. */
static void
destroy_events (SdCudaPipeline * s)
{
  for (int i = 0; i < 2; i++)
    if (s->ev[i])
      cudaEventDestroy (s->ev[i]);
  if (s->fork)
    cudaEventDestroy (s->fork);
  if (s->join)
    cudaEventDestroy (s->join);
  for (int i = 0; i < SD_ENGINE_MAX_IN_FLIGHT; i++) {
    cudaEvent_t slot_events[3] = { s->slots[i].uploaded,
      s->slots[i].computed, s->slots[i].done
    };
    for (int k = 0; k < 3; k++)
      if (slot_events[k])
        cudaEventDestroy (slot_events[k]);
  }
}

extern "C" SdCudaPipeline *
sd_cuda_pipeline_new (int device_id, SdError * err)
{
  int count = 0;
  cudaError_t e = cudaGetDeviceCount (&count);
  if (e != cudaSuccess || count == 0) {
    sd_error_set (err, SD_ERROR_NO_DEVICE,
        "no CUDA device is available (%s); use backend=cpu or auto",
        e != cudaSuccess ? cudaGetErrorString (e) : "none found");
    return NULL;
  }
  const bool external = device_id == SD_DEVICE_CURRENT_CONTEXT;
  /* the current context's device: the runtime takes a context made
   * current through the driver API as its own */
  if (external && (e = cudaGetDevice (&device_id)) != cudaSuccess) {
    cuda_fail (err, e, "reading the current context's device");
    return NULL;
  }
  if (device_id < 0 || device_id >= count) {
    sd_error_set (err, SD_ERROR_NO_DEVICE,
        "CUDA device %d does not exist: this machine has %d", device_id,
        count);
    return NULL;
  }
  SdCudaPipeline *s = (SdCudaPipeline *) calloc (1, sizeof (*s));
  if (!s) {
    sd_error_set (err, SD_ERROR_OUT_OF_MEMORY, "out of memory");
    return NULL;
  }
  s->device = device_id;
  s->external = external;
  cudaDeviceProp prop;
  if ((!external && (e = cudaSetDevice (device_id)) != cudaSuccess)
      || (e = cudaGetDeviceProperties (&prop, device_id)) != cudaSuccess
      || (e = cudaStreamCreateWithFlags (&s->stream,
              cudaStreamNonBlocking)) != cudaSuccess) {
    cuda_fail (err, e, "opening the CUDA device");
    free (s);
    return NULL;
  }
  const char *what = "opening the CUDA device";
  if ((e = create_copy_streams (s)) == cudaSuccess
      && (e = cudaStreamCreateWithFlags (&s->aside,
              cudaStreamNonBlocking)) == cudaSuccess) {
    what = "creating events";
    e = create_events (s);
  }
  if (e != cudaSuccess) {
    cuda_fail (err, e, what);
    sd_cuda_pipeline_free (s);
    return NULL;
  }
  s->info.sm_count = prop.multiProcessorCount;
  s->info.max_smem_optin = (int) prop.sharedMemPerBlockOptin;
  s->info.cc_major = prop.major;
  s->info.cooperative = prop.cooperativeLaunch;
  snprintf (s->device_name, sizeof (s->device_name), "%s (sm_%d%d, %d SMs)",
      prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  return s;
}

extern "C" void
sd_cuda_pipeline_free (SdCudaPipeline * s)
{
  if (!s)
    return;
  select_device (s, NULL);
  synchronize_streams (s);
  sd_cuda_graph_free (s->bp_graph);
  release_buffers (s);
  cudaFree (s->rect_maps);
  destroy_events (s);
  if (s->upload != s->stream)
    cudaStreamDestroy (s->upload);
  if (s->download != s->stream)
    cudaStreamDestroy (s->download);
  if (s->aside)
    cudaStreamDestroy (s->aside);
  cudaStreamDestroy (s->stream);
  free (s);
}

extern "C" const char *
sd_cuda_pipeline_device_name (const SdCudaPipeline * s)
{
  return s ? s->device_name : "";
}

extern "C" SdStatus
sd_cuda_pipeline_process (SdCudaPipeline * s, const SdParams * p,
    const SdPlane * left, const SdPlane * right, SdPlane * out,
    SdError * err)
{
  return process_host (s, p, left, right, out, false, err);
}

extern "C" SdStatus
sd_cuda_pipeline_process_device (SdCudaPipeline * s, const SdParams * p,
    const SdPlane * left, const SdPlane * right, SdPlane * out,
    SdError * err)
{
  SdStatus st;
  if ((st = check_input (s, p, left, right, out, err)) != SD_OK
      || (st = select_device (s, err)) != SD_OK
      || (st = ensure_buffers (s, p, left->width, left->height, err))
      != SD_OK
      || (st = enqueue_device (s, p, left, right, out, err)) != SD_OK)
    return st;
  CHECK (cudaStreamSynchronize (s->stream), "running the pipeline");
  return SD_OK;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

extern "C" SdStatus
sd_cuda_pipeline_time (SdCudaPipeline * s, const SdParams * p,
    const SdPlane * left, const SdPlane * right, int warmup, int runs,
    SdCudaTimings * t, SdError * err)
{
  SdStatus st;
  const int w = left->width, h = left->height;
  if (runs < 1)
    runs = 1;
  memset (t, 0, sizeof (*t));
  if ((st = select_device (s, err)) != SD_OK)
    return st;
  double *dev_ms = (double *) calloc (runs, sizeof (double));
  double *e2e_ms = (double *) calloc (runs, sizeof (double));
  double *wall_ms = (double *) calloc (runs, sizeof (double));
  uint16_t *host_out = (uint16_t *) malloc ((size_t) w * h * 2);
  cudaEvent_t *ev = (cudaEvent_t *) calloc (2 * runs, sizeof (cudaEvent_t));
  void *d_in[2] = { NULL, NULL }, *d_out = NULL;
  SdPlane dl = *left, dr = *right;
  SdPlane dout = { NULL, w, h, (size_t) w * 2, SD_PIXEL_GRAY16 };
  SdPlane hout = { host_out, w, h, (size_t) w * 2, SD_PIXEL_GRAY16 };
  cudaError_t e = cudaSuccess;
  int n_events = 0;
  st = SD_OK;
  if (!dev_ms || !e2e_ms || !wall_ms || !host_out || !ev) {
    st = sd_error_set (err, SD_ERROR_OUT_OF_MEMORY, "out of memory");
    goto done;
  }
  /* device copies of the inputs, in their own format */
  for (int i = 0; i < 2; i++) {
    const SdPlane *pl = i ? right : left;
    const size_t bytes = pl->stride * pl->height;
    if ((e = cudaMalloc (&d_in[i], bytes)) != cudaSuccess
        || (e = cudaMemcpy (d_in[i], pl->data, bytes,
                cudaMemcpyHostToDevice)) != cudaSuccess) {
      st = cuda_fail (err, e, "copying the test images to the device");
      goto done;
    }
  }
  dl.data = d_in[0];
  dr.data = d_in[1];
  if ((e = cudaMalloc (&d_out, (size_t) w * h * 2)) != cudaSuccess) {
    st = cuda_fail (err, e, "allocating the device output");
    goto done;
  }
  dout.data = d_out;
  for (; n_events < 2 * runs; n_events++)
    if ((e = cudaEventCreate (&ev[n_events])) != cudaSuccess) {
      st = cuda_fail (err, e, "creating events");
      goto done;
    }
  if ((st = ensure_buffers (s, p, w, h, err)) != SD_OK)
    goto done;

  /* device memory in and out: the runs go back to back, each between its
   * own pair of events */
  for (int i = 0; i < warmup; i++)
    if ((st = enqueue_device (s, p, &dl, &dr, &dout, err)) != SD_OK)
      goto done;
  for (int i = 0; i < runs; i++) {
    cudaEventRecord (ev[2 * i], s->stream);
    if ((st = enqueue_device (s, p, &dl, &dr, &dout, err)) != SD_OK)
      goto done;
    cudaEventRecord (ev[2 * i + 1], s->stream);
  }
  if ((e = cudaStreamSynchronize (s->stream)) != cudaSuccess) {
    st = cuda_fail (err, e, "running the pipeline");
    goto done;
  }
  for (int i = 0; i < runs; i++) {
    float ms = 0;
    cudaEventElapsedTime (&ms, ev[2 * i], ev[2 * i + 1]);
    dev_ms[i] = ms;
  }

  /* stage by stage: events between the stages, one run at a time (the
   * whole frame only: bands take no marks) */
  if (!s->band_rows) {
    cudaEvent_t marks[5];
    int made = 0;
    double *stage = (double *) calloc ((size_t) 4 * runs, sizeof (double));
    for (; made < 5; made++)
      if (cudaEventCreate (&marks[made]) != cudaSuccess)
        break;
    if (made == 5 && stage) {
      s->marks = marks;
      for (int i = 0; i < runs && st == SD_OK; i++) {
        st = enqueue_device (s, p, &dl, &dr, &dout, err);
        if (st == SD_OK && cudaStreamSynchronize (s->stream) == cudaSuccess)
          for (int k = 0; k < 4; k++) {
            float ms = 0;
            cudaEventElapsedTime (&ms, marks[k], marks[k + 1]);
            stage[k * runs + i] = ms;
          }
      }
      s->marks = NULL;
      for (int k = 0; k < 4 && st == SD_OK; k++) {
        qsort (stage + k * runs, runs, sizeof (double), compare_double);
        t->stage_median[k] = stage[k * runs + runs / 2];
      }
    }
    for (int i = 0; i < made; i++)
      cudaEventDestroy (marks[i]);
    free (stage);
    if (st != SD_OK)
      goto done;
  }

  /* host memory in and out, through the backend's own path */
  for (int i = 0; i < warmup; i++)
    if ((st = process_host (s, p, left, right, &hout, false, err)) != SD_OK)
      goto done;
  for (int i = 0; i < runs; i++) {
    const double t0 = now_ms ();
    if ((st = process_host (s, p, left, right, &hout, true, err)) != SD_OK)
      goto done;
    wall_ms[i] = now_ms () - t0;
    float ms = 0;
    cudaEventElapsedTime (&ms, s->ev[0], s->ev[1]);
    e2e_ms[i] = ms;
  }
  qsort (dev_ms, runs, sizeof (double), compare_double);
  qsort (e2e_ms, runs, sizeof (double), compare_double);
  qsort (wall_ms, runs, sizeof (double), compare_double);
  t->device_median = dev_ms[runs / 2];
  t->device_min = dev_ms[0];
  t->e2e_median = e2e_ms[runs / 2];
  t->e2e_min = e2e_ms[0];
  t->wall_median = wall_ms[runs / 2];
  t->wall_min = wall_ms[0];
  t->runs = runs;
  t->volume_bytes = sd_cuda_sgm_volume_bytes (p, w,
      volume_height (p, h, s->band_rows), rows_strip (s, p, w));
  t->band_rows = s->band_rows;
  t->device_bytes = s->dev_capacity + (s->rect_maps ? (size_t) w * h * 16 :
      0);
  t->eight_bit = sd_cuda_sgm_uses_8bit (p);

done:
  synchronize_streams (s);
  for (int i = 0; i < n_events; i++)
    cudaEventDestroy (ev[i]);
  cudaFree (d_in[0]);
  cudaFree (d_in[1]);
  cudaFree (d_out);
  free (dev_ms);
  free (e2e_ms);
  free (wall_ms);
  free (host_out);
  free (ev);
  return st;
}

/* ---- the SdBackend ------------------------------------------------------ */

static bool
cuda_available (int device_id, SdError * err)
{
  int count = 0;
  cudaError_t e = cudaGetDeviceCount (&count);
  if (e != cudaSuccess || count == 0) {
    cudaGetLastError ();
    sd_error_set (err, SD_ERROR_NO_DEVICE,
        "no CUDA device is available (%s); use backend=cpu or auto",
        e != cudaSuccess ? cudaGetErrorString (e) : "none found");
    return false;
  }
  if (device_id != SD_DEVICE_CURRENT_CONTEXT
      && (device_id < 0 || device_id >= count)) {
    sd_error_set (err, SD_ERROR_NO_DEVICE,
        "CUDA device %d does not exist: this machine has %d", device_id,
        count);
    return false;
  }
  return true;
}

static void *
cuda_create (int device_id, SdError * err)
{
  return sd_cuda_pipeline_new (device_id, err);
}

static SdStatus
cuda_submit (void *state, int slot, const SdParams * params,
    const SdPlane * left, const SdPlane * right, SdError * err)
{
  return submit_pair ((SdCudaPipeline *) state, slot, params, left, right,
      false, false, err);
}

static SdStatus
cuda_submit_device (void *state, int slot, const SdParams * params,
    const SdPlane * left, const SdPlane * right, SdError * err)
{
  return submit_pair ((SdCudaPipeline *) state, slot, params, left, right,
      true, false, err);
}

static SdStatus
cuda_collect (void *state, int slot, SdPlane * out, SdPlane * confidence,
    SdError * err)
{
  return collect_host ((SdCudaPipeline *) state, slot, out, confidence,
      err);
}

static void
cuda_destroy (void *state)
{
  sd_cuda_pipeline_free ((SdCudaPipeline *) state);
}

/* The maps go to the device once, here; no pair is in flight.  The next
 * pair carves the buffers again with room for the rectified views. */
extern "C" SdStatus
sd_cuda_pipeline_set_rectification (SdCudaPipeline * s,
    const SdRectification * rect, SdError * err)
{
  SdStatus st = select_device (s, err);
  if (st != SD_OK)
    return st;
  synchronize_streams (s);
  cudaFree (s->rect_maps);
  s->rect_maps = NULL;
  s->rect_luma = NULL;
  if (!rect)
    return SD_OK;
  const size_t bytes = (size_t) rect->width * rect->height * 2 *
      sizeof (int32_t);
  CHECK (cudaMalloc (&s->rect_maps, 2 * bytes), "allocating the "
      "rectification maps");
  for (int i = 0; i < 2; i++)
    CHECK (cudaMemcpyAsync ((uint8_t *) s->rect_maps + i * bytes,
            rect->map[i], bytes, cudaMemcpyHostToDevice, s->stream),
        "copying the rectification maps");
  CHECK (cudaStreamSynchronize (s->stream), "copying the rectification maps");
  return SD_OK;
}

static SdStatus
cuda_set_rectification (void *state, const SdRectification * rect,
    SdError * err)
{
  return sd_cuda_pipeline_set_rectification ((SdCudaPipeline *) state, rect,
      err);
}

/* No process: the engine runs a pair as submit and collect. */
static int
cuda_band_rows (void *state)
{
  return ((const SdCudaPipeline *) state)->band_rows;
}

extern "C" const SdBackend sd_cuda_backend = {
  "cuda", cuda_available, cuda_supports, cuda_create, NULL, cuda_destroy,
  cuda_submit, cuda_collect, cuda_set_rectification, cuda_submit_device,
  cuda_band_rows,
};
