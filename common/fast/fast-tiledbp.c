/* Tiled BP (common/cpu/tiledbp.c) over threads: the reference's visits,
 * the tiles of each anti-diagonal at once.  A tile's left and upper
 * neighbours lie on the diagonal before and its right and lower ones on the
 * diagonal after, and no two tiles of one diagonal are neighbours, so
 * every visit reads the edge messages it reads in raster order (the
 * reference's argument, checked by test-tiledbp); each thread runs its
 * visits in a tile grid of its own, and the values are the reference's. */
#include "sd-fast.h"

#include <string.h>

size_t
sd_fast_tiled_bp_workspace_bytes (const SdParams * p, int width, int height)
{
  return sd_cpu_tiled_bp_edges_bytes (p, width, height)
      + (size_t) sd_fast_threads (p) * sd_cpu_tiled_bp_grid_bytes (p);
}

void
sd_fast_tiled_bp (const SdParams * p, const float *data, float *belief,
    void *workspace, int width, int height)
{
  const int tiles_x = sd_tiled_bp_tiles (width, p->tile_size);
  const int tiles_y = sd_tiled_bp_tiles (height, p->tile_size);
  const int diagonals = tiles_x + tiles_y - 1;
  const size_t edges_bytes = sd_cpu_tiled_bp_edges_bytes (p, width, height);
  char *const grids = (char *) workspace + edges_bytes;
  const size_t grid_bytes = sd_cpu_tiled_bp_grid_bytes (p);
  memset (workspace, 0, edges_bytes);

  /* one team for the frame; the barrier at the end of each diagonal's
   * loop orders it before the next */
#pragma omp parallel num_threads (sd_fast_threads (p))
  {
#ifdef _OPENMP
    void *const grid = grids + (size_t) omp_get_thread_num () * grid_bytes;
#else
    void *const grid = grids;
#endif
    for (int o = 0; o < p->outer_iterations; o++) {
      for (int pass = 0; pass < 2; pass++) {
        /* the last reverse pass writes the beliefs */
        float *const out = pass == 1 && o + 1 == p->outer_iterations ?
            belief : NULL;
        for (int i = 0; i < diagonals; i++) {
          const int d = pass ? diagonals - 1 - i : i;
          /* the diagonal's tiles (tx, d - tx) inside the image */
          const int first = d - tiles_y + 1 > 0 ? d - tiles_y + 1 : 0;
          const int last = d < tiles_x - 1 ? d : tiles_x - 1;
#pragma omp for schedule(dynamic)
          for (int tx = first; tx <= last; tx++)
            sd_cpu_tiled_bp_visit_in (p, data, out, workspace, grid, width,
                height, tx, d - tx);
        }
      }
    }
  }
}
