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
 * (test-tiledbp checks this through sd_cpu_tiled_bp_visit).
 *
 * Arithmetic: fixed point, as hardware-efficient BP is meant to run.  The
 * data costs (hbp's, in float) are rounded to multiples of
 * 1 / SD_TILED_BP_ONE, and the messages are integers in those units,
 * normalised so that their smallest entry is 0 (the same beliefs' argmins
 * as hbp's zero mean in exact arithmetic: a message shifted by a constant
 * shifts every label's belief alike).  Every operation is then exact, so a
 * parallel version may sum, scan and take minima in any order and still
 * give these bits. */
#include "sd-cpu.h"

#include <math.h>
#include <string.h>

void
sd_tiled_bp_to_fixed (const float *cost, int32_t * fixed, int n)
{
  for (int i = 0; i < n; i++)
    fixed[i] = sd_tiled_bp_fixed (cost[i]);
}

void
sd_tiled_bp_message (const int32_t * data, const int32_t * in_a,
    const int32_t * in_b, const int32_t * in_c, int32_t * out, int D,
    int32_t disc_trunc)
{
  int32_t lowest = INT32_MAX;
  for (int k = 0; k < D; k++) {
    out[k] = data[k] + in_a[k] + in_b[k] + in_c[k];
    if (out[k] < lowest)
      lowest = out[k];
  }
  /* min-convolution with |dp - dq| in two passes; it keeps the smallest
   * entry, lowest */
  for (int k = 1; k < D; k++)
    if (out[k - 1] + SD_TILED_BP_ONE < out[k])
      out[k] = out[k - 1] + SD_TILED_BP_ONE;
  for (int k = D - 2; k >= 0; k--)
    if (out[k + 1] + SD_TILED_BP_ONE < out[k])
      out[k] = out[k + 1] + SD_TILED_BP_ONE;
  /* normalised to a smallest entry of 0, then capped at disc_trunc */
  for (int k = 0; k < D; k++)
    out[k] = out[k] - lowest < disc_trunc ? out[k] - lowest : disc_trunc;
}

const SdTiledBpArithmetic sd_tiled_bp_reference_arithmetic = {
  sd_tiled_bp_message, sd_tiled_bp_to_fixed
};

/* A tile with a one-pixel halo: data costs and the four messages each
 * pixel last sent (stored at the sender, as SdBpGrid), in fixed point. */
typedef struct
{
  int width, height, num_disparities;
  int32_t *data, *up, *down, *left, *right;
  const SdTiledBpArithmetic *arithmetic;
} TileGrid;

/* How the edges' workspace is cut.  The boundary between tile columns c
 * and c + 1 keeps, for each image row, the message its left side sent
 * right (east) and the one its right side sent left (west); likewise
 * between tile rows r and r + 1 for each image column (south and north).
 * A visit's TileGrid, whose halo holds what came in from outside, lies
 * apart (after the edges in sd_cpu_tiled_bp's workspace, one a thread in
 * a parallel version's). */
typedef struct
{
  int tiles_x, tiles_y;
  int32_t *east, *west, *south, *north;
} TiledLayout;

/* Fills l's tile counts, and its pointers into edges when edges is not
 * NULL; returns the edges' size in int32s. */
static size_t
lay_out (const SdParams * p, int32_t * edges, int width, int height,
    TiledLayout * l)
{
  const size_t D = (size_t) p->num_disparities;
  l->tiles_x = sd_tiled_bp_tiles (width, p->tile_size);
  l->tiles_y = sd_tiled_bp_tiles (height, p->tile_size);
  const size_t vertical = (size_t) (l->tiles_x - 1) * height * D;
  const size_t horizontal = (size_t) (l->tiles_y - 1) * width * D;
  const size_t at[5] = { 0, vertical, 2 * vertical,
    2 * vertical + horizontal, 2 * (vertical + horizontal)
  };
  l->east = edges ? edges + at[0] : NULL;
  l->west = edges ? edges + at[1] : NULL;
  l->south = edges ? edges + at[2] : NULL;
  l->north = edges ? edges + at[3] : NULL;
  return at[4];
}

int
sd_tiled_bp_tiles (int size, int tile)
{
  return (size + tile - 1) / tile;
}

size_t
sd_cpu_tiled_bp_edges_bytes (const SdParams * p, int width, int height)
{
  TiledLayout l;
  return sizeof (int32_t) * lay_out (p, NULL, width, height, &l);
}

size_t
sd_cpu_tiled_bp_grid_bytes (const SdParams * p)
{
  const size_t side = (size_t) p->tile_size + 2;
  return sizeof (int32_t) * 5 * side * side * (size_t) p->num_disparities;
}

size_t
sd_cpu_tiled_bp_workspace_bytes (const SdParams * p, int width, int height)
{
  return sd_cpu_tiled_bp_edges_bytes (p, width, height)
      + sd_cpu_tiled_bp_grid_bytes (p);
}

/* Where the grid keeps the message pixel (x, y) sends towards side (an
 * sd_bp_incoming index: SD_BP_FROM_BELOW is the message sent down). */
static int32_t *
grid_message (const TileGrid * g, int side, int x, int y)
{
  int32_t *const by_side[4] = {[SD_BP_FROM_BELOW] = g->down,
    [SD_BP_FROM_ABOVE] = g->up,[SD_BP_FROM_RIGHT] = g->right,
    [SD_BP_FROM_LEFT] = g->left
  };
  return by_side[side] + ((size_t) y * g->width + x) * g->num_disparities;
}

/* The neighbour on each side is one step of (dx, dy) away, and sends back
 * towards the opposite side. */
static const struct
{
  int dx, dy, opposite;
} sides[4] = {
  [SD_BP_FROM_BELOW] = {0, 1, SD_BP_FROM_ABOVE},
  [SD_BP_FROM_ABOVE] = {0, -1, SD_BP_FROM_BELOW},
  [SD_BP_FROM_RIGHT] = {1, 0, SD_BP_FROM_LEFT},
  [SD_BP_FROM_LEFT] = {-1, 0, SD_BP_FROM_RIGHT},
};

/* The message pixel (x, y) of the tile (never the halo) received from
 * side: what its neighbour there sent towards the opposite side. */
static const int32_t *
incoming (const TileGrid * g, int x, int y, int side)
{
  return grid_message (g, sides[side].opposite, x + sides[side].dx,
      y + sides[side].dy);
}

/* The message pixel (x, y) sends to its neighbour on side: data plus the
 * other three incoming messages. */
static void
send (const TileGrid * g, int x, int y, int side, int32_t * out,
    int32_t disc_trunc)
{
  const int32_t *other[3];
  for (int m = 0, n = 0; m < 4; m++)
    if (m != side)
      other[n++] = incoming (g, x, y, m);
  const int D = g->num_disparities;
  g->arithmetic->message (g->data + ((size_t) y * g->width + x) * D,
      other[0], other[1], other[2], out, D, disc_trunc);
}

/* Where the workspace keeps the message tile (tx, ty) sends across its
 * edge on side from the edge pixel in image row or column i. */
static int32_t *
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
 * sender has just received.  The pixels of one step (a column of a
 * sweep to the left or right, a row of one up or down) send to the next
 * step, never to each other, so they go one after another: their messages
 * are independent, and a processor overlaps them. */
static void
sweep (const TileGrid * g, int side, int32_t disc_trunc)
{
  const int w = g->width - 2, h = g->height - 2;
  const int dx = sides[side].dx, dy = sides[side].dy;
  const int steps = dx ? w : h, across = dx ? h : w;
  /* the last step has no neighbour in the tile to send to */
  for (int s = 0; s + 1 < steps; s++) {
    const int at = (dx ? dx : dy) < 0 ? steps - s : 1 + s;
    for (int i = 1; i <= across; i++) {
      const int x = dx ? at : i, y = dx ? i : at;
      send (g, x, y, side, grid_message (g, side, x, y), disc_trunc);
    }
  }
}

/* Passes messages across the edges of tile (tx, ty), whose grid g holds
 * it with its halo: the neighbours' stored messages into the halo, or
 * (send_own) the tile's own, sent from its current state, into the
 * workspace.  Sides without a neighbour tile are the image border. */
static void
exchange_edges (const TileGrid * g, const TiledLayout * l, int width,
    int height, int tx, int ty, int T, bool send_own, int32_t disc_trunc)
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
                sides[side].opposite, along), sizeof (int32_t) * D);
    }
  }
}

/* belief = data + the four incoming messages of each of the tile's pixels,
 * back in the data costs' units */
static void
write_beliefs (const TileGrid * g, float *belief, int width, int x0, int y0)
{
  const int D = g->num_disparities;
  for (int y = 1; y < g->height - 1; y++) {
    for (int x = 1; x < g->width - 1; x++) {
      const int32_t *data = g->data + ((size_t) y * g->width + x) * D;
      const int32_t *in[4];
      for (int side = 0; side < 4; side++)
        in[side] = incoming (g, x, y, side);
      float *out = belief + ((size_t) (y0 + y - 1) * width + x0 + x - 1) * D;
      for (int k = 0; k < D; k++)
        out[k] = (float) (data[k] + in[0][k] + in[1][k] + in[2][k] +
            in[3][k]) * (1.0f / SD_TILED_BP_ONE);
    }
  }
}

void
sd_cpu_tiled_bp_visit_in (const SdParams * p,
    const SdTiledBpArithmetic * arithmetic, const float *data, float *belief,
    void *edges, void *grid, int width, int height, int tx, int ty)
{
  const int D = p->num_disparities, T = p->tile_size;
  const int32_t disc_trunc = sd_tiled_bp_fixed (sd_params_bp_disc_trunc (p));
  TiledLayout l;
  lay_out (p, edges, width, height, &l);
  const int x0 = tx * T, y0 = ty * T;
  const int w = width - x0 < T ? width - x0 : T;
  const int h = height - y0 < T ? height - y0 : T;
  const size_t cells = (size_t) (w + 2) * (h + 2) * D;
  int32_t *const at = grid;
  TileGrid g = { w + 2, h + 2, D, at, at + cells, at + 2 * cells,
    at + 3 * cells, at + 4 * cells, arithmetic
  };

  /* the inner messages restart from zero; so do the halo's, which stand
   * for "no neighbour" at the image border */
  memset (at, 0, sizeof (int32_t) * 5 * cells);
  for (int y = 0; y < h; y++)
    arithmetic->to_fixed (data + ((size_t) (y0 + y) * width + x0) * D,
        g.data + ((size_t) (y + 1) * g.width + 1) * D, w * D);

  exchange_edges (&g, &l, width, height, tx, ty, T, false, disc_trunc);
  for (int i = 0; i < p->inner_iterations; i++) {
    sweep (&g, SD_BP_FROM_RIGHT, disc_trunc);
    sweep (&g, SD_BP_FROM_LEFT, disc_trunc);
    sweep (&g, SD_BP_FROM_BELOW, disc_trunc);
    sweep (&g, SD_BP_FROM_ABOVE, disc_trunc);
  }

  /* the tile's own edge messages, from its final state */
  exchange_edges (&g, &l, width, height, tx, ty, T, true, disc_trunc);
  if (belief)
    write_beliefs (&g, belief, width, x0, y0);
}

void
sd_cpu_tiled_bp_visit (const SdParams * p, const float *data, float *belief,
    void *workspace, int width, int height, int tx, int ty)
{
  sd_cpu_tiled_bp_visit_in (p, &sd_tiled_bp_reference_arithmetic, data,
      belief, workspace,
      (char *) workspace + sd_cpu_tiled_bp_edges_bytes (p, width, height),
      width, height, tx, ty);
}

void
sd_cpu_tiled_bp (const SdParams * p, const float *data, float *belief,
    void *workspace, int width, int height)
{
  TiledLayout l;
  memset (workspace, 0, sd_cpu_tiled_bp_workspace_bytes (p, width, height));
  lay_out (p, workspace, width, height, &l);
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
