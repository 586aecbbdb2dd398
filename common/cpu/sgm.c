/* Semi-Global Matching (Hirschmueller 2008): cost aggregation along 4 or 8
 * straight paths, summed into one volume. */
#include "sd-cpu.h"

#include <stdlib.h>
#include <string.h>

typedef struct
{
  int dx, dy;
} SdDirection;

/* The first four are the 4-path set; all eight the 8-path set. */
static const SdDirection directions[8] = {
  {1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1},
};

int
sd_cpu_penalty2 (const SdParams * p, int intensity_step)
{
  if (!sd_params_p2_adaptive (p))
    return p->p2;
  int p2 = p->p2 * SD_P2_ADAPTIVE_STEP / (SD_P2_ADAPTIVE_STEP +
      intensity_step);
  return p2 < p->p1 ? p->p1 : p2;
}

/* One path step: out[k] = C[k] + min(prev[k], prev[k+-1] + P1,
 * min(prev) + P2) - min(prev). */
static void
sgm_step (const uint8_t * c, const uint16_t * prev, uint16_t * out, int D,
    int p1, int p2)
{
  int min_prev = prev[0];
  for (int k = 1; k < D; k++)
    if (prev[k] < min_prev)
      min_prev = prev[k];
  for (int k = 0; k < D; k++) {
    int best = prev[k];
    if (k > 0 && prev[k - 1] + p1 < best)
      best = prev[k - 1] + p1;
    if (k + 1 < D && prev[k + 1] + p1 < best)
      best = prev[k + 1] + p1;
    if (min_prev + p2 < best)
      best = min_prev + p2;
    out[k] = (uint16_t) (c[k] + best - min_prev);
  }
}

/* Aggregates one direction.  Rows are visited in the direction's vertical
 * order and each row in its horizontal order, so the previous pixel on the
 * path is always done: in the same row (dy == 0) or in the row before. */
static void
aggregate_direction (const SdParams * p, SdDirection dir,
    const uint8_t * cost, const uint8_t * guide, uint16_t * sum,
    uint16_t * prev_row, uint16_t * cur_row, int width, int height)
{
  const int D = p->num_disparities;
  for (int i = 0; i < height; i++) {
    const int y = dir.dy >= 0 ? i : height - 1 - i;
    for (int j = 0; j < width; j++) {
      const int x = dir.dx >= 0 ? j : width - 1 - j;
      const size_t pix = (size_t) y * width + x;
      const uint8_t *c = cost + pix * D;
      uint16_t *out = cur_row + (size_t) x * D;
      const int px = x - dir.dx, py = y - dir.dy;
      if (px < 0 || px >= width || py < 0 || py >= height) {
        for (int k = 0; k < D; k++)
          out[k] = c[k];
      } else {
        const uint16_t *prev = (dir.dy == 0 ? cur_row : prev_row) +
            (size_t) px *D;
        const int step = abs ((int) guide[pix] - (int) guide[(size_t) py *
                width + px]);
        sgm_step (c, prev, out, D, p->p1, sd_cpu_penalty2 (p, step));
      }
      uint16_t *s = sum + pix * D;
      for (int k = 0; k < D; k++)
        s[k] = (uint16_t) (s[k] + out[k]);
    }
    uint16_t *t = prev_row;
    prev_row = cur_row;
    cur_row = t;
  }
}

void
sd_cpu_sgm (const SdParams * p, const uint8_t * cost, const uint8_t * guide,
    uint16_t * sum, uint16_t * scratch, int width, int height)
{
  const size_t row = (size_t) width * p->num_disparities;
  memset (sum, 0, sizeof (uint16_t) * row * height);
  for (int r = 0; r < p->paths; r++)
    aggregate_direction (p, directions[r], cost, guide, sum, scratch,
        scratch + row, width, height);
}
