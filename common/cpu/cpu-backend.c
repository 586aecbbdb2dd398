/* The CPU SdBackends: "reference" runs the reference stages in order,
 * "cpu" the same with the fast stages (common/fast/) where they exist.
 * Buffers grow to the largest frame seen and are kept from one frame to the
 * next. */
#include "sd-cpu.h"
#include "../fast/sd-fast.h"
#include "../sd-band.h"
#include "../sd-engine.h"
#include "../sd-host-memory.h"
#include "../sd-output.h"

#include <stdlib.h>
#include <string.h>
#include <stdint.h>

typedef struct
{
  void *data;
  size_t size;
} Buffer;

enum
{
  RAW_LUMA, LUMA_LEFT, LUMA_RIGHT, PRE_LEFT, PRE_RIGHT, TMP,
  CENSUS_LEFT, CENSUS_RIGHT, COST, SGM_WORKSPACE,
  FLOAT_LEFT, FLOAT_RIGHT, FLOAT_TMP, BP_DATA, BELIEF, BP_WORKSPACE,
  DISP, DISP_TMP, RIGHT_DISP, MARGIN, FRAME_DISP, SPECKLE_SEEN,
  SPECKLE_QUEUE, GUIDED, N_BUFFERS
};

typedef struct
{
  Buffer buffers[N_BUFFERS];
  bool fast;                    /* the cpu backend, not the reference */
  const SdRectification *rect;  /* the engine's, or NULL */
  /* the output rows a band of the last frame (0: whole), and what they
   * were chosen for when the parameters left them to the backend: the
   * frame's size, the bytes it needs whole and max-device-memory */
  int band_rows;
  int chosen_width, chosen_height, chosen_max_memory;
  size_t chosen_whole;
} SdCpuState;

/* Returns buffer id with at least size bytes, or NULL when out of memory. */
static void *
reserve (SdCpuState * s, int id, size_t size)
{
  Buffer *b = &s->buffers[id];
  if (b->size < size) {
    free (b->data);
    b->data = malloc (size);
    b->size = b->data ? size : 0;
  }
  return b->data;
}

static bool
cpu_available (int device_id, SdError * err)
{
  (void) device_id;
  (void) err;
  return true;
}

static void *
create (bool fast, SdError * err)
{
  SdCpuState *s = calloc (1, sizeof (*s));
  if (!s)
    sd_error_set (err, SD_ERROR_OUT_OF_MEMORY, "out of memory");
  else
    s->fast = fast;
  return s;
}

static void *
cpu_create (int device_id, SdError * err)
{
  (void) device_id;
  return create (true, err);
}

static void *
reference_create (int device_id, SdError * err)
{
  (void) device_id;
  return create (false, err);
}

static void
cpu_destroy (void *state)
{
  SdCpuState *s = state;
  for (int i = 0; i < N_BUFFERS; i++)
    free (s->buffers[i].data);
  free (s);
}

/* The reference's SGM workspace: the summed volume, then the two rows of
 * path costs sd_cpu_sgm needs. */
static size_t
reference_sgm_workspace_bytes (const SdParams * p, int width, int height,
    int band_rows)
{
  (void) band_rows;
  return ((size_t) height + 2) * width * p->num_disparities *
      sizeof (uint16_t);
}

/* the whole frame at once: the oracle of the fast stages' bands */
static void
reference_sgm (const SdParams * p, SdCostRows cost_rows, void *cost_user,
    const uint8_t * guide, int16_t * disp, uint8_t * margin,
    int16_t * right_disp, void *workspace, int width, int height,
    int band_rows)
{
  (void) band_rows;
  const uint8_t *cost = cost_rows (cost_user, 0, height);
  uint16_t *sum = workspace;
  uint16_t *scratch = sum + (size_t) height * width * p->num_disparities;
  sd_cpu_sgm (p, cost, guide, sum, scratch, width, height);
  sd_cpu_wta (p, sum, disp, margin, width, height);
  if (sd_params_lr_check (p) != SD_LR_CHECK_OFF)
    sd_cpu_right_disparity (p, sum, right_disp, width, height);
}

static void
reference_median_disparity (const SdParams * p, const int16_t * src,
    int16_t * dst, int width, int height)
{
  (void) p;
  sd_cpu_median_disparity (src, dst, width, height);
}

static void
reference_guided_median (const SdParams * p, const int16_t * src,
    const uint8_t * guide, int16_t * dst, int width, int height)
{
  (void) p;
  sd_cpu_guided_median (src, guide, dst, width, height);
}

static void
reference_census (const SdParams * p, const uint8_t * img,
    uint64_t * signature, int width, int height)
{
  sd_cpu_census (img, signature, width, height, p->census_window);
}

static const SdCpuStages reference_stages = {
  .isa = "reference",
  .census = reference_census,
  .workspace_bytes = reference_sgm_workspace_bytes,
  .cost_volume = sd_cpu_cost_volume,
  .sgm = reference_sgm,
  .median_disparity = reference_median_disparity,
  .hbp_workspace_bytes = sd_cpu_hbp_workspace_bytes,
  .hbp = sd_cpu_hbp,
  .tiled_bp_workspace_bytes = sd_cpu_tiled_bp_workspace_bytes,
  .tiled_bp = sd_cpu_tiled_bp,
  .tiled_bp_arithmetic = &sd_tiled_bp_reference_arithmetic,
  .guided_median = reference_guided_median,
  .temporal_row = sd_temporal_row,
  .rectify_rows = sd_rectify_component_rows,
};

static const SdCpuStages *
stages (const SdCpuState * s)
{
  return s->fast ? sd_fast_pick_stages () : &reference_stages;
}

/* Where sgm takes its costs from: rows of the cost volume of the frame's
 * prefiltered views and census signatures, into one buffer. */
typedef struct
{
  const SdCpuStages *stages;
  const SdParams *p;
  const uint8_t *pre_left, *pre_right;
  const uint64_t *census_left, *census_right;
  uint8_t *cost;
  int width;
} CostSource;

/* SdCostRows: the costs of a cost volume's row depend on that row alone */
static const uint8_t *
cost_rows (void *user, int y0, int rows)
{
  const CostSource *c = user;
  const size_t first = (size_t) y0 * c->width;
  c->stages->cost_volume (c->p, c->pre_left + first, c->pre_right + first,
      c->census_left ? c->census_left + first : NULL,
      c->census_right ? c->census_right + first : NULL, c->cost, c->width,
      rows);
  return c->cost;
}

/* The bands sgm's volumes are cut into: the fast stages' (the output is
 * the whole frame's either way, sd-band.h); the reference computes whole. */
static int
sgm_band_rows (const SdCpuState * s)
{
  return s->fast ? s->band_rows : 0;
}

/* The rows of sgm's cost volume and partial sums. */
static int
sgm_volume_rows (int height, int band_rows)
{
  return sd_band_count (height, band_rows) > 1 ? band_rows : height;
}

/* SGM: costs aggregated along paths, read out by winner takes all. */
static bool
run_sgm (SdCpuState * s, const SdParams * p, const uint8_t * guide,
    const uint8_t * pre_left, const uint8_t * pre_right,
    const uint64_t * census_left, const uint64_t * census_right,
    int16_t * disp, uint8_t * margin, int16_t * right_disp, int w, int h)
{
  const int band_rows = sgm_band_rows (s);
  const SdCpuStages *st = stages (s);
  uint8_t *cost = reserve (s, COST, (size_t) w * sgm_volume_rows (h,
          band_rows) * p->num_disparities + SD_FAST_COST_PADDING);
  void *workspace = reserve (s, SGM_WORKSPACE, st->workspace_bytes (p, w, h,
          band_rows));
  if (!cost || !workspace)
    return false;
  CostSource source = { st, p, pre_left, pre_right, census_left,
    census_right, cost, w
  };
  st->sgm (p, cost_rows, &source, guide, disp, margin, right_disp,
      workspace, w, h, band_rows);
  return true;
}

/* A belief propagation method: its workspace size and its solver, which
 * turns data costs into beliefs (sd_cpu_hbp, sd_cpu_tiled_bp). */
typedef struct
{
  size_t (*workspace_bytes) (const SdParams * p, int width, int height);
  void (*solve) (const SdParams * p, const float *data, float *belief,
      void *workspace, int width, int height);
} BpMethod;

/* The belief propagation method of params->algorithm (hbp or tiled-bp). */
static BpMethod
bp_method (const SdCpuState * s, const SdParams * p)
{
  const SdCpuStages *st = stages (s);
  if (p->algorithm == SD_ALGORITHM_HBP) {
    const BpMethod hbp = { st->hbp_workspace_bytes, st->hbp };
    return hbp;
  }
  const BpMethod tiled = { st->tiled_bp_workspace_bytes, st->tiled_bp };
  return tiled;
}

/* The bytes a pixel of a band holds in process_band whatever the
 * algorithm: the prefiltered views, a row of scratch and the margins, the
 * census signatures and three disparity maps. */
#define BAND_PIXEL_BYTES (4 + 2 * sizeof (uint64_t) + 3 * sizeof (int16_t))

/* The bytes a frame or band of height rows holds under belief
 * propagation: its images, data costs, beliefs and messages (run_bp), and
 * process_band's. */
static size_t
bp_bytes (const SdCpuState * s, const SdParams * p, int width, int height)
{
  const size_t n = (size_t) width * height, D = (size_t) p->num_disparities;
  const size_t per_pixel = 3 * sizeof (float) + 2 * D * sizeof (float) +
      BAND_PIXEL_BYTES;
  return n * per_pixel + bp_method (s, p).workspace_bytes (p, width, height);
}

/* The bytes a frame holds under sgm in bands of band_rows: process_band's
 * for the whole frame (sgm's bands are inside its stage), the cost volume
 * of a band and the stage's workspace (run_sgm). */
static size_t
sgm_bytes (const SdCpuState * s, const SdParams * p, int width, int height,
    int band_rows)
{
  return (size_t) width * height * BAND_PIXEL_BYTES + (size_t) width *
      sgm_volume_rows (height, band_rows) * p->num_disparities +
      SD_FAST_COST_PADDING + stages (s)->workspace_bytes (p, width, height,
      band_rows);
}

/* A frame for band_bytes */
typedef struct
{
  const SdCpuState *s;
  const SdParams *p;
  int width, height;
} BandFrame;

/* SdBandBytes: under belief propagation a band holds its rows and the
 * overlap above and below */
static size_t
band_bytes (int band_rows, void *user)
{
  const BandFrame *f = user;
  if (f->p->algorithm == SD_ALGORITHM_SGM)
    return sgm_bytes (f->s, f->p, f->width, f->height, band_rows);
  return bp_bytes (f->s, f->p, f->width, sd_band_get (f->height, band_rows,
          0).in_height);
}

/* params->band_rows, or when it is 0: none when the whole frame fits what
 * the backend may hold (max-device-memory, or 90 % of the memory left to
 * the process, under a container's limit too (sd-host-memory.h), with the
 * backend's own buffers counted available), else as few bands as fit.
 * Chosen once per frame size and parameters, so that the bands do not come
 * and go with the system's memory.  The reference computes sgm whole. */
static SdStatus
choose_band_rows (SdCpuState * s, const SdParams * p, int w, int h,
    SdError * err)
{
  if (p->band_rows > 0 || (p->algorithm == SD_ALGORITHM_SGM && !s->fast)) {
    s->band_rows = p->band_rows;
    s->chosen_whole = 0;
    return SD_OK;
  }
  BandFrame frame = { s, p, w, h };
  const size_t whole = band_bytes (0, &frame);
  if (w == s->chosen_width && h == s->chosen_height
      && whole == s->chosen_whole
      && p->max_device_memory == s->chosen_max_memory)
    return SD_OK;
  size_t limit = (size_t) p->max_device_memory << 20;
  if (!limit) {
    size_t held = 0;
    for (int i = 0; i < N_BUFFERS; i++)
      held += s->buffers[i].size;
    const size_t available = sd_host_memory_available ();
    limit = available == SIZE_MAX ? SIZE_MAX : (available + held) / 10 * 9;
  }
  int rows;
  const SdStatus st = sd_band_rows_to_fit (p, w, h, limit, "memory",
      band_bytes, &frame, &rows, err);
  if (st != SD_OK)
    return st;
  s->band_rows = rows;
  s->chosen_width = w;
  s->chosen_height = h;
  s->chosen_whole = whole;
  s->chosen_max_memory = p->max_device_memory;
  return SD_OK;
}

/* The left disparities (and margins, when margin is not NULL) from the
 * beliefs and, for the left-right check, the right ones. */
static void
reference_bp_disparities (const SdParams * p, const float *belief,
    int16_t * disp, uint8_t * margin, int16_t * right_disp, int width,
    int height)
{
  sd_cpu_bp_disparity (p, belief, disp, margin, width, height);
  if (sd_params_lr_check (p) != SD_LR_CHECK_OFF)
    sd_cpu_bp_right_disparity (p, belief, right_disp, width, height);
}

/* Belief propagation: data costs on the (smoothed) images, beliefs read
 * out; the methods differ only in how messages pass. */
static bool
run_bp (SdCpuState * s, const BpMethod * method, const SdParams * p,
    const uint8_t * pre_left, const uint8_t * pre_right,
    const uint64_t * census_left, const uint64_t * census_right,
    int16_t * disp, uint8_t * margin, int16_t * right_disp, int w, int h)
{
  const size_t n = (size_t) w * h, D = (size_t) p->num_disparities;
  float *left = reserve (s, FLOAT_LEFT, n * sizeof (float));
  float *right = reserve (s, FLOAT_RIGHT, n * sizeof (float));
  float *tmp = reserve (s, FLOAT_TMP, n * sizeof (float));
  float *data = reserve (s, BP_DATA, n * D * sizeof (float));
  float *belief = reserve (s, BELIEF, n * D * sizeof (float));
  void *ws = reserve (s, BP_WORKSPACE, method->workspace_bytes (p, w, h));
  if (!left || !right || !tmp || !data || !belief || !ws)
    return false;
  if (p->cost == SD_COST_AD || sd_params_blends_ad (p)) {
    /* only the ad and census-ad costs read the (smoothed) images */
    sd_cpu_gaussian (pre_left, left, tmp, w, h, p->sigma);
    sd_cpu_gaussian (pre_right, right, tmp, w, h, p->sigma);
  }
  (s->fast ? sd_fast_bp_data_cost : sd_cpu_bp_data_cost) (p, left, right,
      census_left, census_right, data, w, h);
  method->solve (p, data, belief, ws, w, h);
  (s->fast ? sd_fast_bp_disparities : reference_bp_disparities) (p, belief,
      disp, margin, right_disp, w, h);
  return true;
}

static SdStatus
cpu_set_rectification (void *state, const SdRectification * rect,
    SdError * err)
{
  (void) err;
  ((SdCpuState *) state)->rect = rect;
  return SD_OK;
}

/* A view's luma, undistorted and rectified when there are maps. */
static bool
view_luma (SdCpuState * s, const SdParams * p, const SdPlane * plane,
    int view, uint8_t * luma)
{
  if (!s->rect) {
    sd_plane_to_luma (plane, luma);
    return true;
  }
  const int w = plane->width, h = plane->height;
  uint8_t *raw = reserve (s, RAW_LUMA, (size_t) w * h);
  if (!raw)
    return false;
  sd_plane_to_luma (plane, raw);
  if (s->fast)
    sd_fast_rectify_component (p, s->rect->map[view], raw, w, luma, w, 1, w,
        h);
  else
    sd_rectify_rows (s->rect->map[view], raw, luma, w, h, 0, h);
  return true;
}

/* One band of the frame (sd-band.h; the whole frame when there is one)
 * from its luma on to the median: the band is an image of its own, whose
 * disparities *result points at; the confidence of its kept rows goes to
 * confidence (it works row by row).  brightness_map: the frame's map of
 * the right view's levels (NULL: none). */
static bool
process_band (SdCpuState * s, const SdParams * p, const uint8_t * luma_left,
    const uint8_t * luma_right, const uint8_t * brightness_map, int w,
    SdBand b, int16_t ** result, SdPlane * confidence)
{
  const int h = b.in_height;
  const size_t n = (size_t) w * h;
  uint8_t *pre_left = reserve (s, PRE_LEFT, n);
  uint8_t *pre_right = reserve (s, PRE_RIGHT, n);
  uint8_t *tmp = reserve (s, TMP, n);
  int16_t *disp = reserve (s, DISP, n * sizeof (int16_t));
  int16_t *disp_tmp = reserve (s, DISP_TMP, n * sizeof (int16_t));
  int16_t *right_disp = reserve (s, RIGHT_DISP, n * sizeof (int16_t));
  uint8_t *margin = p->confidence ? reserve (s, MARGIN, n) : NULL;
  bool ok = pre_left && pre_right && tmp && disp && disp_tmp && right_disp
      && (margin || !p->confidence);
  if (!ok)
    return false;
  const SdRowRunner rows = s->fast ? sd_fast_rows : NULL;
  sd_cpu_prefilter (p, rows, luma_left, pre_left, tmp, w, h);
  sd_cpu_prefilter (p, rows, luma_right, pre_right, tmp, w, h);
  uint64_t *census_left = NULL, *census_right = NULL;
  if (sd_params_uses_census (p)) {
    census_left = reserve (s, CENSUS_LEFT, n * sizeof (uint64_t));
    census_right = reserve (s, CENSUS_RIGHT, n * sizeof (uint64_t));
    if (!census_left || !census_right)
      return false;
    stages (s)->census (p, pre_left, census_left, w, h);
    stages (s)->census (p, pre_right, census_right, w, h);
  }
  /* after the census: the map only feeds the absolute differences.  The
   * census reads the order of brightness, which the map keeps but for the
   * levels it merges, ties that would cost it bits (docs/algorithms.md,
   * "Brightness matching").  A median prefilter commutes with the map. */
  if (brightness_map)
    sd_cpu_apply_brightness_map (brightness_map, pre_right, n);
  switch (p->algorithm) {
    case SD_ALGORITHM_SGM:
      ok = run_sgm (s, p, luma_left, pre_left, pre_right, census_left,
          census_right, disp, margin, right_disp, w, h);
      break;
    case SD_ALGORITHM_HBP:
    case SD_ALGORITHM_TILED_BP:{
      const BpMethod method = bp_method (s, p);
      ok = run_bp (s, &method, p, pre_left, pre_right, census_left,
          census_right, disp, margin, right_disp, w, h);
      break;
    }
  }
  if (!ok)
    return false;

  if (sd_params_lr_check (p) != SD_LR_CHECK_OFF)
    (s->fast ? sd_fast_lr_check : sd_cpu_lr_check) (p, disp, right_disp, w,
        h);
  const int16_t *checked = disp;
  if (p->median) {
    stages (s)->median_disparity (p, disp, disp_tmp, w, h);
    disp = disp_tmp;
  }
  const size_t skip = (size_t) (b.keep_y0 - b.in_y0) * w;
  /* before the holes are filled: a filled pixel has no match */
  if (confidence)
    sd_cpu_confidence (p, checked + skip, disp + skip, right_disp + skip,
        margin ? margin + skip : NULL, sd_plane_row (confidence, b.keep_y0),
        confidence->stride, w, b.keep_height);
  *result = disp;
  return true;
}

/* Hole filling, the guided median and the output, on the whole frame: a
 * speckle may span bands, and the median's samples reach across their
 * edges.  guide is the frame's left luma. */
static bool
finish_frame (SdCpuState * s, const SdParams * p, int16_t * disp,
    const uint8_t * guide, int w, int h, SdPlane * out, SdPlane * confidence)
{
  if (sd_params_fill_holes (p)) {
    const size_t n = (size_t) w * h;
    uint8_t *seen = reserve (s, SPECKLE_SEEN, n);
    int32_t *queue = reserve (s, SPECKLE_QUEUE, n * sizeof (int32_t));
    if (!seen || !queue)
      return false;
    sd_cpu_remove_speckles (disp, confidence ? sd_plane_row (confidence,
            0) : NULL, confidence ? confidence->stride : 0, w, h, seen,
        queue);
    int lo, hi;
    sd_output_disparity_bounds (p, &lo, &hi);
    sd_cpu_fill_holes (disp, w, h, lo, hi);
  }
  if (p->guided_median) {
    int16_t *filtered = reserve (s, GUIDED, (size_t) w * h * sizeof (int16_t));
    if (!filtered)
      return false;
    stages (s)->guided_median (p, disp, guide, filtered, w, h);
    disp = filtered;
  }
  sd_cpu_to_output (p, disp, (uint16_t *) sd_plane_row (out, 0),
      out->stride, w, h);
  return true;
}

static SdStatus
cpu_process (void *state, const SdParams * p, const SdPlane * left,
    const SdPlane * right, SdPlane * out, SdPlane * confidence,
    SdError * err)
{
  SdCpuState *s = state;
  const int w = left->width, h = left->height;
  const SdStatus chosen = choose_band_rows (s, p, w, h, err);
  if (chosen != SD_OK)
    return chosen;
  const size_t n = (size_t) w * h;
  uint8_t *luma_left = reserve (s, LUMA_LEFT, n);
  uint8_t *luma_right = reserve (s, LUMA_RIGHT, n);
  bool ok = luma_left && luma_right
      && view_luma (s, p, left, 0, luma_left)
      && view_luma (s, p, right, 1, luma_right);
  /* from the whole frame, so that every band sees the same map */
  uint8_t map[SD_BRIGHTNESS_LEVELS];
  const bool matched = ok && sd_params_matches_brightness (p);
  if (matched)
    sd_cpu_brightness_map (luma_left, luma_right, w, h, map);
  /* sgm's bands are exact (sd-band.h): they give the whole frame's output,
   * which this backend computes whole */
  const int band_rows = p->algorithm == SD_ALGORITHM_SGM ? 0 : s->band_rows;
  const int bands = sd_band_count (h, band_rows);
  int16_t *disp = NULL;
  if (bands == 1) {
    ok = ok && process_band (s, p, luma_left, luma_right,
        matched ? map : NULL, w, sd_band_get (h, band_rows, 0), &disp,
        confidence);
  } else {
    /* the bands' kept rows, put together */
    disp = reserve (s, FRAME_DISP, n * sizeof (int16_t));
    ok = ok && disp;
    for (int k = 0; ok && k < bands; k++) {
      const SdBand b = sd_band_get (h, band_rows, k);
      const size_t first = (size_t) b.in_y0 * w;
      int16_t *band_disp;
      ok = process_band (s, p, luma_left + first, luma_right + first,
          matched ? map : NULL, w, b, &band_disp, confidence);
      if (ok)
        memcpy (disp + (size_t) b.keep_y0 * w,
            band_disp + (size_t) (b.keep_y0 - b.in_y0) * w,
            (size_t) w * b.keep_height * sizeof (int16_t));
    }
  }
  ok = ok && finish_frame (s, p, disp, luma_left, w, h, out, confidence);
  if (!ok)
    return sd_error_set (err, SD_ERROR_OUT_OF_MEMORY,
        "out of memory for %dx%d images with %d disparities on the CPU "
        "backend", w, h, p->num_disparities);
  return SD_OK;
}

static int
cpu_band_rows (void *state)
{
  return ((const SdCpuState *) state)->band_rows;
}

const SdBackend sd_cpu_backend = {
  .name = "cpu",
  .available = cpu_available,
  .create = cpu_create,
  .process = cpu_process,
  .destroy = cpu_destroy,
  .set_rectification = cpu_set_rectification,
  .band_rows = cpu_band_rows,
};

/* The oracle the other backends are tested against. */
const SdBackend sd_reference_backend = {
  .name = "reference",
  .available = cpu_available,
  .create = reference_create,
  .process = cpu_process,
  .destroy = cpu_destroy,
  .set_rectification = cpu_set_rectification,
  .band_rows = cpu_band_rows,
};
