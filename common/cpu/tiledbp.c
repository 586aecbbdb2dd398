/* Tiled belief propagation (Liang et al., "Hardware-efficient belief
 * propagation", IEEE TCSVT 2011, as Eslami, Kasampalis and Kotsifakou run
 * it on a GPU for the MEMOCODE 2013 contest): the image is cut into square
 * tiles, and each tile visit runs BP-M sweeps over the tile's pixels.
 *
 * Only the messages that cross a tile boundary are kept between visits;
 * the messages inside a tile start from zero at every visit.  That is what
 * makes the method cheap in memory (a GPU keeps a tile in shared memory and
 * only the boundaries in global memory), and the sweeps carry information
 * across the whole tile in one pass, so a few inner iterations rebuild what
 * was dropped.
 *
 * Order: each outer iteration visits the tiles in raster order, then in
 * reverse raster order; the last visit of each tile (in the last reverse
 * pass) writes its beliefs.  A visit of tile (tx, ty) reads only the
 * boundary messages its four neighbours sent and writes only its own, so
 * in a raster pass it sees its left and upper neighbours after their visit
 * in this pass and its right and lower neighbours before theirs.  A
 * wavefront that runs the anti-diagonals tx + ty = 0, 1, ... one after the
 * other (and the reverse pass from the last diagonal back) gives every
 * visit exactly these inputs: the left and upper neighbours lie on the
 * diagonal before, the right and lower ones on the diagonal after, and two
 * tiles of one diagonal are never neighbours.  So the tiles of a diagonal
 * may run in any order or all at once, with the same bits as raster order
 * (test-tiledbp checks this through sd_cpu_tiled_bp_visit). */
#include "sd-cpu.h"

#include <string.h>

/* How the workspace is cut.  The boundary between tile columns c and c + 1
 * keeps, for each image row, the message its left side sent right (east)
 * and the one its right side sent left (west); likewise between tile rows
 * r and r + 1 for each image column (south and north).  Then comes the
 * scratch of one visit: a tile with a one-pixel halo that holds the
 * messages coming in from outside (data and four message arrays), and the
 * tile's beliefs. */
typedef struct
{
  int tiles_x, tiles_y;
  float *east, *west, *south, *north;
  float *grid, *belief;
} TiledLayout;

static int
tile_count (int size, int tile)
{
  return (size + tile - 1) / tile;
}

/* Fills l's tile counts, and its pointers into ws when ws is not NULL;
 * returns the workspace size in floats. */
static size_t
lay_out (const SdParams * p, float *ws, int width, int height,
    TiledLayout * l)
{
  const size_t D = (size_t) p->num_disparities;
  const size_t halo = (size_t) (p->tile_size + 2) * (p->tile_size + 2) * D;
  l->tiles_x = tile_count (width, p->tile_size);
  l->tiles_y = tile_count (height, p->tile_size);
  const size_t vertical = (size_t) (l->tiles_x - 1) * height * D;
  const size_t horizontal = (size_t) (l->tiles_y - 1) * width * D;
  const size_t at[7] = { 0, vertical, 2 * vertical,
    2 * vertical + horizontal, 2 * (vertical + horizontal),
    2 * (vertical + horizontal) + 5 * halo,
    2 * (vertical + horizontal) + 6 * halo
  };
  l->east = ws ? ws + at[0] : NULL;
  l->west = ws ? ws + at[1] : NULL;
  l->south = ws ? ws + at[2] : NULL;
  l->north = ws ? ws + at[3] : NULL;
  l->grid = ws ? ws + at[4] : NULL;
  l->belief = ws ? ws + at[5] : NULL;
  return at[6];
}

size_t
sd_cpu_tiled_bp_workspace_floats (const SdParams * p, int width, int height)
{
  TiledLayout l;
  return lay_out (p, NULL, width, height, &l);
}

/* The message pixel (x, y) sends to its neighbour on side `side` (an
 * sd_bp_incoming index): data plus the other three incoming messages, in
 * the order hbp adds them, so that both methods round alike. */
static void
send (const SdBpGrid * g, int x, int y, int side, float *out,
    float disc_trunc)
{
  const int D = g->num_disparities;
  const float *in[4], *other[3];
  sd_bp_incoming (g, x, y, in);
  for (int m = 0, n = 0; m < 4; m++)
    if (m != side)
      other[n++] = in[m];
  sd_bp_message (g->data + ((size_t) y * g->width + x) * D, other[0],
      other[1], other[2], out, D, disc_trunc);
}

/* The neighbour on each side (an sd_bp_incoming index) is one step of
 * (dx, dy) away, and sends back towards the opposite side. */
static const struct
{
  int dx, dy, opposite;
} sides[4] = {
  [SD_BP_FROM_BELOW] = {0, 1, SD_BP_FROM_ABOVE},
  [SD_BP_FROM_ABOVE] = {0, -1, SD_BP_FROM_BELOW},
  [SD_BP_FROM_RIGHT] = {1, 0, SD_BP_FROM_LEFT},
  [SD_BP_FROM_LEFT] = {-1, 0, SD_BP_FROM_RIGHT},
};

/* Where the grid keeps the message pixel (x, y) sends towards side. */
static float *
grid_message (const SdBpGrid * g, int side, int x, int y)
{
  float *const by_side[4] = {[SD_BP_FROM_BELOW] = g->down,
    [SD_BP_FROM_ABOVE] = g->up,[SD_BP_FROM_RIGHT] = g->right,
    [SD_BP_FROM_LEFT] = g->left
  };
  return by_side[side] + ((size_t) y * g->width + x) * g->num_disparities;
}

/* Where the workspace keeps the message tile (tx, ty) sends across its
 * edge on side from the edge pixel in image row or column i. */
static float *
edge_message (const TiledLayout * l, int D, int width, int height, int tx,
    int ty, int side, int i)
{
  switch (side) {
    case SD_BP_FROM_RIGHT:
      return l->east + ((size_t) tx * height + i) * D;
    case SD_BP_FROM_LEFT:
      return l->west + ((size_t) (tx - 1) * height + i) * D;
    case SD_BP_FROM_BELOW:
      return l->south + ((size_t) ty * width + i) * D;
    default:
      return l->north + ((size_t) (ty - 1) * width + i) * D;
  }
}

/* One BP-M sweep over the tile's pixels (grid coordinates 1 .. w, 1 .. h):
 * each pixel whose neighbour on side is in the tile sends to it, starting
 * at the far side, so that every message already includes the one its
 * sender has just received. */
static void
sweep (const SdBpGrid * g, int side, float disc_trunc)
{
  const int w = g->width - 2, h = g->height - 2;
  const int dx = sides[side].dx, dy = sides[side].dy;
  for (int j = 0; j < h; j++) {
    const int y = dy < 0 ? h - j : 1 + j;
    for (int i = 0; i < w; i++) {
      const int x = dx < 0 ? w - i : 1 + i;
      if (x + dx >= 1 && x + dx <= w && y + dy >= 1 && y + dy <= h)
        send (g, x, y, side, grid_message (g, side, x, y), disc_trunc);
    }
  }
}

/* Passes messages across the edges of tile (tx, ty), whose grid g holds
 * it with its halo: the neighbours' stored messages into the halo, or
 * (send_own) the tile's own, sent from its current state, into the
 * workspace.  Sides without a neighbour tile are the image border. */
static void
exchange_edges (const SdBpGrid * g, const TiledLayout * l, int width,
    int height, int tx, int ty, int T, bool send_own, float disc_trunc)
{
  const int D = g->num_disparities, w = g->width - 2, h = g->height - 2;
  for (int side = 0; side < 4; side++) {
    const int dx = sides[side].dx, dy = sides[side].dy;
    if (tx + dx < 0 || tx + dx >= l->tiles_x || ty + dy < 0
        || ty + dy >= l->tiles_y)
      continue;
    for (int i = 0; i < (dx ? h : w); i++) {
      /* the edge pixel, and the image row or column it is in */
      const int x = dx ? (dx > 0 ? w : 1) : i + 1;
      const int y = dx ? i + 1 : (dy > 0 ? h : 1);
      const int along = (dx ? ty : tx) * T + i;
      if (send_own)
        send (g, x, y, side, edge_message (l, D, width, height, tx, ty, side,
                along), disc_trunc);
      else
        memcpy (grid_message (g, sides[side].opposite, x + dx, y + dy),
            edge_message (l, D, width, height, tx + dx, ty + dy,
                sides[side].opposite, along), sizeof (float) * D);
    }
  }
}

void
sd_cpu_tiled_bp_visit (const SdParams * p, const float *data, float *belief,
    float *workspace, int width, int height, int tx, int ty)
{
  const int D = p->num_disparities, T = p->tile_size;
  const float disc_trunc = sd_params_bp_disc_trunc (p);
  TiledLayout l;
  lay_out (p, workspace, width, height, &l);
  const int x0 = tx * T, y0 = ty * T;
  const int w = width - x0 < T ? width - x0 : T;
  const int h = height - y0 < T ? height - y0 : T;
  const size_t cells = (size_t) (w + 2) * (h + 2) * D, row = sizeof (float)
      * w * D;
  SdBpGrid g = { w + 2, h + 2, D, l.grid, l.grid + cells, l.grid + 2 * cells,
    l.grid + 3 * cells, l.grid + 4 * cells
  };

  /* the inner messages restart from zero; so do the halo's, which stand
   * for "no neighbour" at the image border */
  memset (l.grid, 0, sizeof (float) * 5 * cells);
  for (int y = 0; y < h; y++)
    memcpy (g.data + ((size_t) (y + 1) * g.width + 1) * D,
        data + ((size_t) (y0 + y) * width + x0) * D, row);

  exchange_edges (&g, &l, width, height, tx, ty, T, false, disc_trunc);
  for (int i = 0; i < p->inner_iterations; i++) {
    sweep (&g, SD_BP_FROM_RIGHT, disc_trunc);
    sweep (&g, SD_BP_FROM_LEFT, disc_trunc);
    sweep (&g, SD_BP_FROM_BELOW, disc_trunc);
    sweep (&g, SD_BP_FROM_ABOVE, disc_trunc);
  }

  /* the tile's own edge messages, from its final state */
  exchange_edges (&g, &l, width, height, tx, ty, T, true, disc_trunc);

  if (!belief)
    return;
  sd_bp_beliefs (&g, l.belief);
  for (int y = 0; y < h; y++)
    memcpy (belief + ((size_t) (y0 + y) * width + x0) * D,
        l.belief + ((size_t) (y + 1) * g.width + 1) * D, row);
}

void
sd_cpu_tiled_bp (const SdParams * p, const float *data, float *belief,
    float *workspace, int width, int height)
{
  TiledLayout l;
  memset (workspace, 0, sizeof (float) * lay_out (p, workspace, width,
          height, &l));
  const int n = l.tiles_x * l.tiles_y;
  for (int o = 0; o < p->outer_iterations; o++) {
    for (int t = 0; t < n; t++)
      sd_cpu_tiled_bp_visit (p, data, NULL, workspace, width, height,
          t % l.tiles_x, t / l.tiles_x);
    const bool last = o + 1 == p->outer_iterations;
    for (int t = n - 1; t >= 0; t--)
      sd_cpu_tiled_bp_visit (p, data, last ? belief : NULL, workspace, width,
          height, t % l.tiles_x, t / l.tiles_x);
  }
}
