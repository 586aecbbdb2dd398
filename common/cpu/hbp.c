/* Hierarchical belief propagation (Felzenszwalb and Huttenlocher, "Efficient
 * belief propagation for early vision"): data costs summed 2x2 up a
 * pyramid, checkerboard message passing from the coarsest level down, the
 * messages of each level starting from those of the level above. */
#include "sd-cpu.h"

#include <string.h>

size_t
sd_cpu_hbp_workspace_bytes (const SdParams * p, int width, int height)
{
  size_t total = 0;
  const int levels = sd_params_bp_levels (p, width, height);
  for (int l = 0; l < levels; l++) {
    total += (size_t) 5 * width * height * p->num_disparities;
    width = (width + 1) / 2;
    height = (height + 1) / 2;
  }
  return sizeof (float) * total;
}

static void
lay_out_levels (const SdParams * p, float *ws, int width, int height,
    SdBpGrid * levels, int n)
{
  const int D = p->num_disparities;
  for (int l = 0; l < n; l++) {
    const size_t size = (size_t) width * height * D;
    levels[l] = (SdBpGrid) {
    width, height, D, ws, ws + size, ws + 2 * size, ws + 3 * size,
          ws + 4 * size};
    ws += 5 * size;
    width = (width + 1) / 2;
    height = (height + 1) / 2;
  }
}

/* data of a coarse pixel = sum of its (up to) four children, row by row */
static void
sum_data_up (const SdBpGrid * fine, SdBpGrid * coarse, int D)
{
  for (int y = 0; y < coarse->height; y++) {
    for (int x = 0; x < coarse->width; x++) {
      float *dst = coarse->data + ((size_t) y * coarse->width + x) * D;
      for (int k = 0; k < D; k++)
        dst[k] = 0;
      for (int j = 0; j < 2; j++) {
        for (int i = 0; i < 2; i++) {
          const int fx = 2 * x + i, fy = 2 * y + j;
          if (fx >= fine->width || fy >= fine->height)
            continue;
          const float *src = fine->data + ((size_t) fy * fine->width +
              fx) * D;
          for (int k = 0; k < D; k++)
            dst[k] += src[k];
        }
      }
    }
  }
}

/* each fine pixel starts from the messages its parent sent */
static void
copy_messages_down (const SdBpGrid * coarse, SdBpGrid * fine, int D)
{
  for (int y = 0; y < fine->height; y++) {
    for (int x = 0; x < fine->width; x++) {
      const size_t from = ((size_t) (y / 2) * coarse->width + x / 2) * D;
      const size_t to = ((size_t) y * fine->width + x) * D;
      memcpy (fine->up + to, coarse->up + from, sizeof (float) * D);
      memcpy (fine->down + to, coarse->down + from, sizeof (float) * D);
      memcpy (fine->left + to, coarse->left + from, sizeof (float) * D);
      memcpy (fine->right + to, coarse->right + from, sizeof (float) * D);
    }
  }
}

void
sd_cpu_hbp (const SdParams * p, const float *data, float *belief,
    void *workspace, int width, int height)
{
  const int D = p->num_disparities;
  const int n = sd_params_bp_levels (p, width, height);
  const float disc_trunc = sd_params_bp_disc_trunc (p);
  SdBpGrid levels[SD_MAX_BP_LEVELS];
  lay_out_levels (p, workspace, width, height, levels, n);

  memcpy (levels[0].data, data, sizeof (float) * width * height * D);
  for (int l = 1; l < n; l++)
    sum_data_up (&levels[l - 1], &levels[l], D);

  for (int l = n - 1; l >= 0; l--) {
    SdBpGrid *lv = &levels[l];
    const size_t size = (size_t) lv->width * lv->height * D;
    if (l == n - 1) {
      memset (lv->up, 0, sizeof (float) * size);
      memset (lv->down, 0, sizeof (float) * size);
      memset (lv->left, 0, sizeof (float) * size);
      memset (lv->right, 0, sizeof (float) * size);
    } else {
      copy_messages_down (&levels[l + 1], lv, D);
    }
    /* checkerboard: in iteration t the pixels with x + y + t even send,
     * reading only what the other colour sent before */
    for (int t = 0; t < p->iterations; t++)
      for (int y = 0; y < lv->height; y++)
        for (int x = (y + t) & 1; x < lv->width; x += 2)
          sd_bp_update_pixel (lv, x, y, disc_trunc);
  }
  sd_bp_beliefs (&levels[0], belief);
}
