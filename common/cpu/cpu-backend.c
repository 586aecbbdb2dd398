/* The CPU SdBackend: runs the reference stages in order, with buffers kept
 * from one frame to the next while the size and the disparity count stay. */
#include "sd-cpu.h"
#include "../sd-engine.h"

#include <stdlib.h>

typedef struct
{
  int width, height, num_disparities;
  uint8_t *luma_left, *luma_right, *pre_left, *pre_right, *tmp;
  uint64_t *census_left, *census_right;
  uint8_t *cost;
  uint16_t *sum, *scratch;
  int16_t *disp, *disp_tmp, *right_disp;
} SdCpuState;

static void
release_buffers (SdCpuState * s)
{
  free (s->luma_left);
  free (s->luma_right);
  free (s->pre_left);
  free (s->pre_right);
  free (s->tmp);
  free (s->census_left);
  free (s->census_right);
  free (s->cost);
  free (s->sum);
  free (s->scratch);
  free (s->disp);
  free (s->disp_tmp);
  free (s->right_disp);
  *s = (SdCpuState) {
  0};
}

static SdStatus
ensure_buffers (SdCpuState * s, int w, int h, int D, SdError * err)
{
  if (s->width == w && s->height == h && s->num_disparities == D)
    return SD_OK;
  release_buffers (s);
  const size_t n = (size_t) w * h;
  s->luma_left = malloc (n);
  s->luma_right = malloc (n);
  s->pre_left = malloc (n);
  s->pre_right = malloc (n);
  s->tmp = malloc (n);
  s->census_left = malloc (n * sizeof (uint64_t));
  s->census_right = malloc (n * sizeof (uint64_t));
  s->cost = malloc (n * D);
  s->sum = malloc (n * D * sizeof (uint16_t));
  s->scratch = malloc ((size_t) 2 * w * D * sizeof (uint16_t));
  s->disp = malloc (n * sizeof (int16_t));
  s->disp_tmp = malloc (n * sizeof (int16_t));
  s->right_disp = malloc (n * sizeof (int16_t));
  if (!s->luma_left || !s->luma_right || !s->pre_left || !s->pre_right
      || !s->tmp || !s->census_left || !s->census_right || !s->cost || !s->sum
      || !s->scratch || !s->disp || !s->disp_tmp || !s->right_disp) {
    release_buffers (s);
    return sd_error_set (err, SD_ERROR_OUT_OF_MEMORY,
        "out of memory for %dx%d images with %d disparities (the CPU "
        "backend needs about %zu MB)", w, h, D,
        (n * (3 * (size_t) D + 27)) >> 20);
  }
  s->width = w;
  s->height = h;
  s->num_disparities = D;
  return SD_OK;
}

static bool
cpu_available (int device_id, SdError * err)
{
  (void) device_id;
  (void) err;
  return true;
}

static void *
cpu_create (int device_id, SdError * err)
{
  (void) device_id;
  SdCpuState *s = calloc (1, sizeof (*s));
  if (!s)
    sd_error_set (err, SD_ERROR_OUT_OF_MEMORY, "out of memory");
  return s;
}

static void
cpu_destroy (void *state)
{
  release_buffers (state);
  free (state);
}

static SdStatus
cpu_process (void *state, const SdParams * p, const SdPlane * left,
    const SdPlane * right, SdPlane * out, SdError * err)
{
  SdCpuState *s = state;
  const int w = left->width, h = left->height;
  SdStatus st = ensure_buffers (s, w, h, p->num_disparities, err);
  if (st != SD_OK)
    return st;

  sd_plane_to_luma (left, s->luma_left);
  sd_plane_to_luma (right, s->luma_right);
  sd_cpu_prefilter (p, s->luma_left, s->pre_left, s->tmp, w, h);
  sd_cpu_prefilter (p, s->luma_right, s->pre_right, s->tmp, w, h);
  sd_cpu_cost_volume (p, s->pre_left, s->pre_right, s->census_left,
      s->census_right, s->cost, w, h);
  sd_cpu_sgm (p, s->cost, s->luma_left, s->sum, s->scratch, w, h);
  sd_cpu_wta (p, s->sum, s->disp, w, h);
  if (p->lr_check != SD_LR_CHECK_OFF) {
    sd_cpu_right_disparity (p, s->sum, s->right_disp, w, h);
    sd_cpu_lr_check (p, s->disp, s->right_disp, w, h);
  }
  if (p->median) {
    sd_cpu_median_disparity (s->disp, s->disp_tmp, w, h);
    int16_t *t = s->disp;
    s->disp = s->disp_tmp;
    s->disp_tmp = t;
  }
  if (p->fill_holes)
    sd_cpu_fill_holes (s->disp, w, h);
  sd_cpu_to_output (s->disp, out->data, out->stride, w, h);
  return SD_OK;
}

const SdBackend sd_cpu_backend = {
  .name = "cpu",
  .available = cpu_available,
  .create = cpu_create,
  .process = cpu_process,
  .destroy = cpu_destroy,
};
