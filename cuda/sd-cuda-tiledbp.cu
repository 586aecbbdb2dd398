/* Tiled belief propagation on the GPU (algorithm=tiled-bp), after the CPU
 * reference common/cpu/tiledbp.c, which says what a tile visit is.
 *
 * Order: the tiles of one anti-diagonal (tx + ty = d) never touch each
 * other and read only what the diagonals before (raster pass) or after
 * (reverse pass) wrote, so one thread block visits each tile of a diagonal
 * at once, and the diagonals run one launch each, in order on the
 * engine's stream.  The launches of every pass are captured once per
 * (size, parameters) into a CUDA graph and replayed: measured on an H100,
 * 0.3 to 5 % faster than one cooperative launch with a grid sync between
 * diagonals (docs/performance.md).
 *
 * A visit keeps the tile in shared memory as the CPU's grid: data costs
 * and the four message arrays with a one-pixel halo for what the
 * neighbours sent.  Pixels are an odd number of floats apart, and so are
 * rows, so that the threads of a sweep (one per row, or per column), which
 * all read disparity k of their own pixel at once, hit distinct banks.
 * The data costs are computed once per frame into a tile-major volume that
 * a visit copies with contiguous loads.  BP-M's right and left
 * sweeps read only the vertical messages and write one horizontal array
 * each, and the down and up sweeps the other way round, so each pair runs
 * at once: one thread per row or column and direction, 2T threads, every
 * pixel's message built in that thread's registers from the one it
 * received a step before.  That chain (2T messages per inner iteration,
 * times the tiles on a path through the diagonals) is what bounds the
 * time, so the message code is written for latency: the forward and
 * backward passes of the O(D) min-convolution run side by side.  They give
 * the CPU's bits: min(forward(k), backward(k)) is what the CPU's backward
 * pass over the forward one computes, because adding 1.0 and rounding is
 * monotonic, so a path that turns back never wins.  Every other operation
 * repeats the CPU's, in its order, with explicit round-to-nearest
 * intrinsics. */
#include "sd-cuda-bp.h"
#include "sd-cuda-tiledbp.h"

/* the CPU's side indices (sd_bp_incoming): the message a pixel receives
 * from below was sent up, and so on */
#define SIDES 4

typedef struct
{
  const float *left, *right;    /* smoothed images */
  float *data;                  /* data costs, tile by tile: T * T * D floats
                                 * each, rows of T pixels */
  /* what tile column c sent east / tile column c + 1 sent west, per image
   * row; what tile row r sent south / tile row r + 1 sent north, per
   * image column (D floats each, as the CPU lays them out) */
  float *east, *west, *south, *north;
  float *belief;                /* sd-cuda-bp.h's layout */
  int w, h, D, T, tiles_x, tiles_y, min_disparity, inner, outer;
  float weight, trunc, disc_trunc;
} TiledArgs;

#define VISIT_THREADS 256

/* 2T threads sweep; more copy and fill */
static int
visit_threads (int T)
{
  return max (VISIT_THREADS, 32 * sd_cuda_div_up (2 * T, 32));
}

/* How a visit lays out shared memory: data costs for the T x T interior,
 * then the four message arrays over the (T + 2)^2 grid, in SdBpGrid's
 * order.  Offsets are in floats; pixel and row strides are odd. */
typedef struct
{
  int pixel;                    /* from one pixel to the next: D, or D + 1 */
  int data_row, grid_row;       /* from one row to the next */
  int grid;                     /* floats of one message array */
  int total;                    /* floats of everything */
} VisitLayout;

__host__ __device__ static inline int
odd (int n)
{
  return n | 1;
}

__host__ __device__ static inline VisitLayout
visit_layout (int T, int D)
{
  VisitLayout l;
  l.pixel = odd (D);
  l.data_row = odd (T * l.pixel);
  l.grid_row = odd ((T + 2) * l.pixel);
  l.grid = (T + 2) * l.grid_row;
  l.total = T * l.data_row + SIDES * l.grid;
  return l;
}

/* sd_bp_message() with the message in registers: h[k] for k < D (+inf
 * above), the result in out. */
template < int K > __device__ __forceinline__ void
message (const float (&h)[K], int D, float disc_trunc, float (&out)[K])
{
  float lowest = INFINITY, fwd[K], bwd[K];
#pragma unroll
  for (int k = 0; k < K; k++) {
    lowest = fminf (lowest, h[k]);
    fwd[k] = k ? fminf (h[k], __fadd_rn (fwd[k - 1], 1.0f)) : h[k];
  }
#pragma unroll
  for (int k = K - 1; k >= 0; k--)
    bwd[k] = k < K - 1 ? fminf (h[k], __fadd_rn (bwd[k + 1], 1.0f)) : h[k];
  const float cap = __fadd_rn (lowest, disc_trunc);
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < K; k++) {
    out[k] = fminf (fminf (fwd[k], bwd[k]), cap);
    if (k < D)
      sum = __fadd_rn (sum, out[k]);
  }
  const float mean = __fdiv_rn (sum, (float) D);
#pragma unroll
  for (int k = 0; k < K; k++)
    out[k] = __fsub_rn (out[k], mean);
}

template < int K > __device__ __forceinline__ void
load (float (&v)[K], const float *src, int D)
{
#pragma unroll
  for (int k = 0; k < K; k++)
    v[k] = k < D ? src[k] : 0.0f;
}

template < int K > __device__ __forceinline__ void
store (float *dst, const float (&v)[K], int D)
{
#pragma unroll
  for (int k = 0; k < K; k++)
    if (k < D)
      dst[k] = v[k];
}

/* h = ((data + a) + b) + c, the CPU's order of the three messages other
 * than the receiver's; +inf above D */
template < int K > __device__ __forceinline__ void
gather (float (&h)[K], const float *data, const float *a, const float *b,
    const float *c, int D)
{
#pragma unroll
  for (int k = 0; k < K; k++)
    h[k] = k < D ? __fadd_rn (__fadd_rn (__fadd_rn (data[k], a[k]), b[k]),
        c[k]) : INFINITY;
}

/* One line of a BP-M sweep: n pixels from grid index g (data index di),
 * stepping gs (di by ds); each but the last sends its message into out at
 * its own index, built from what the previous pixel sent (kept in
 * registers) and the two messages across the line, at offsets o1 and o2
 * in s1 and s2.  The CPU adds the message along the line last in a
 * horizontal sweep and first in a vertical one. */
template < int K, bool ALONG_FIRST > __device__ __forceinline__ void
sweep_line (const float *data, int di, int ds, float *out, int g, int gs,
    const float *s1, int o1, const float *s2, int o2, int n, int D,
    float disc_trunc)
{
  float along[K];
  load (along, out + g - gs, D);
  for (int i = 0; i + 1 < n; i++, g += gs, di += ds) {
    const float *d = data + di;
    const float *a = s1 + g + o1;
    const float *b = s2 + g + o2;
    float h[K];
#pragma unroll
    for (int k = 0; k < K; k++) {
      if (k >= D)
        h[k] = INFINITY;
      else if (ALONG_FIRST)
        h[k] = __fadd_rn (__fadd_rn (__fadd_rn (d[k], along[k]), a[k]),
            b[k]);
      else
        h[k] = __fadd_rn (__fadd_rn (__fadd_rn (d[k], a[k]), b[k]),
            along[k]);
    }
    message (h, D, disc_trunc, along);
    store (out + g, along, D);
  }
}

/* Where the boundary store keeps what tile (tx, ty) sends across its edge
 * on side from the edge pixel in image row or column i (the CPU's
 * edge_message). */
__device__ __forceinline__ float *
edge_message (const TiledArgs & a, int tx, int ty, int side, int i)
{
  switch (side) {
    case SD_BP_FROM_RIGHT:
      return a.east + ((size_t) tx * a.h + i) * a.D;
    case SD_BP_FROM_LEFT:
      return a.west + ((size_t) (tx - 1) * a.h + i) * a.D;
    case SD_BP_FROM_BELOW:
      return a.south + ((size_t) ty * a.w + i) * a.D;
    default:
      return a.north + ((size_t) (ty - 1) * a.w + i) * a.D;
  }
}

/* sd_cpu_tiled_bp_visit() by one block. */
template < int K > __device__ void
visit (const TiledArgs & a, float *sm, int tx, int ty, bool write_belief)
{
  const int D = a.D, T = a.T;
  const VisitLayout l = visit_layout (T, D);
  const int P = l.pixel, R = l.grid_row;
  const int x0 = tx * T, y0 = ty * T;
  const int w = min (T, a.w - x0), h = min (T, a.h - y0);
  float *data = sm;
  /* the arrays a pixel's sent messages are kept in, by side sent to, as
   * SdBpGrid: up, down, left, right; grid pixel (x, y) at y R + x P */
  float *up = data + T * l.data_row, *down = up + l.grid;
  float *left = down + l.grid, *right = left + l.grid;
  const int tid = threadIdx.x, nt = blockDim.x;

  /* the messages restart from zero, the halo's too ("no neighbour") */
  for (int i = tid; i < SIDES * l.grid; i += nt)
    up[i] = 0.0f;
  const float *tile_data = a.data + ((size_t) ty * a.tiles_x + tx) * T * T *
      D;
  /* a pixel a thread, its D floats unrolled: no division per float */
  for (int i = tid; i < T * T; i += nt) {
    float v[K];
    load (v, tile_data + (size_t) i * D, D);
    store (data + (i / T) * l.data_row + (i % T) * P, v, D);
  }
  __syncthreads ();

  /* what the neighbours sent, into the halo: an edge pixel a thread */
  for (int e = tid; e < 2 * (w + h); e += nt) {
    float *dst;
    const float *src = NULL;
    if (e < h) {                /* from the left tile, which sent east */
      dst = right + (e + 1) * R;
      if (tx > 0)
        src = edge_message (a, tx - 1, ty, SD_BP_FROM_RIGHT, y0 + e);
    } else if (e < 2 * h) {     /* from the right tile, sent west */
      dst = left + (e - h + 1) * R + (w + 1) * P;
      if (tx + 1 < a.tiles_x)
        src = edge_message (a, tx + 1, ty, SD_BP_FROM_LEFT, y0 + e - h);
    } else if (e < 2 * h + w) { /* from the tile above, sent south */
      dst = down + (e - 2 * h + 1) * P;
      if (ty > 0)
        src = edge_message (a, tx, ty - 1, SD_BP_FROM_BELOW,
            x0 + e - 2 * h);
    } else {                    /* from the tile below, sent north */
      dst = up + (h + 1) * R + (e - 2 * h - w + 1) * P;
      if (ty + 1 < a.tiles_y)
        src = edge_message (a, tx, ty + 1, SD_BP_FROM_ABOVE,
            x0 + e - 2 * h - w);
    }
    if (src) {
      float v[K];
      load (v, src, D);
      store (dst, v, D);
    }
  }
  __syncthreads ();

  for (int it = 0; it < a.inner; it++) {
    /* right and left sweeps: row tid % h, the vertical messages across */
    if (tid < 2 * h) {
      const int y = tid % h + 1, to_left = tid >= h;
      const int x = to_left ? w : 1;
      sweep_line < K, false > (data, (y - 1) * l.data_row + (x - 1) * P,
          to_left ? -P : P, to_left ? left : right, y * R + x * P,
          to_left ? -P : P, up, R, down, -R, w, D, a.disc_trunc);
    }
    __syncthreads ();
    /* down and up sweeps: column tid % w */
    if (tid < 2 * w) {
      const int x = tid % w + 1, to_up = tid >= w;
      const int y = to_up ? h : 1;
      sweep_line < K, true > (data, (y - 1) * l.data_row + (x - 1) * P,
          to_up ? -l.data_row : l.data_row, to_up ? up : down,
          y * R + x * P, to_up ? -R : R, left, P, right, -P, h, D,
          a.disc_trunc);
    }
    __syncthreads ();
  }

  /* the tile's own edge messages, from its final state */
  for (int e = tid; e < 2 * (w + h); e += nt) {
    int side, x, y, along, ntx = tx, nty = ty;
    if (e < h) {
      side = SD_BP_FROM_RIGHT, x = w, y = e + 1, along = y0 + e, ntx++;
    } else if (e < 2 * h) {
      side = SD_BP_FROM_LEFT, x = 1, y = e - h + 1, along = y0 + e - h, ntx--;
    } else if (e < 2 * h + w) {
      side = SD_BP_FROM_BELOW, x = e - 2 * h + 1, y = h;
      along = x0 + x - 1, nty++;
    } else {
      side = SD_BP_FROM_ABOVE, x = e - 2 * h - w + 1, y = 1;
      along = x0 + x - 1, nty--;
    }
    if (ntx < 0 || ntx >= a.tiles_x || nty < 0 || nty >= a.tiles_y)
      continue;
    const int g = y * R + x * P;
    const float *below = up + g + R, *above = down + g - R;
    const float *from_right = left + g + P, *from_left = right + g - P;
    /* the three that are not from side, in the CPU's order (below, above,
     * right, left) */
    float hv[K], msg[K];
    gather (hv, data + (y - 1) * l.data_row + (x - 1) * P,
        side == SD_BP_FROM_BELOW ? above : below,
        side == SD_BP_FROM_BELOW || side == SD_BP_FROM_ABOVE ? from_right :
        above, side == SD_BP_FROM_LEFT ? from_right : from_left, D);
    message (hv, D, a.disc_trunc, msg);
    store (edge_message (a, tx, ty, side, along), msg, D);
  }

  if (!write_belief)
    return;
  /* beliefs: data + below + above + right + left, sd_bp_beliefs' order */
  const int pitch = sd_cuda_bp_pitch (a.w);
  for (int i = tid; i < w * h; i += nt) {
    const int x = i % w + 1, y = i / w + 1;
    const int g = y * R + x * P;
    const float *d = data + (y - 1) * l.data_row + (x - 1) * P;
    float *out = a.belief + sd_cuda_bp_at (x0 + x - 1, y0 + y - 1, 0, D,
        pitch);
#pragma unroll
    for (int k = 0; k < K; k++) {
      if (k >= D)
        break;
      float b = d[k];
      b = __fadd_rn (b, up[g + R + k]);
      b = __fadd_rn (b, down[g - R + k]);
      b = __fadd_rn (b, left[g + P + k]);
      b = __fadd_rn (b, right[g - P + k]);
      out[(size_t) k * pitch] = b;
    }
  }
}

/* The data costs of every tile, tile-major (see TiledArgs.data); pixels of
 * a partial tile outside the image are left alone, never read. */
__global__ void
tile_data_kernel (TiledArgs a)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= a.w)
    return;
  const int T = a.T, D = a.D;
  const size_t row = (size_t) y * a.w;
  const float l = a.left[row + x];
  float *dst = a.data + (((size_t) (y / T) * a.tiles_x + x / T) * T * T +
      (size_t) (y % T) * T + x % T) * D;
  for (int k = 0; k < D; k++) {
    const int xr = min (max (x - a.min_disparity - k, 0), a.w - 1);
    dst[k] = sd_cuda_bp_data_cost (l, a.right[row + xr], a.weight, a.trunc);
  }
}

/* The tiles of diagonal d, one block each. */
template < int K > __global__ void
tiled_bp_diagonal_kernel (TiledArgs a, int d, int belief)
{
  extern __shared__ float sm[];
  const int ty = max (0, d - a.tiles_x + 1) + (int) blockIdx.x;
  visit < K > (a, sm, d - ty, ty, belief);
}

/* Every pass's launches, captured once for the arguments they were
 * captured with (sizes, parameters, workspace pointers). */
struct SdCudaTiledGraph
{
  TiledArgs args;
  cudaGraphExec_t exec;
};

void
sd_cuda_tiled_graph_free (SdCudaTiledGraph * g)
{
  if (g && g->exec)
    cudaGraphExecDestroy (g->exec);
  free (g);
}

template < int K > static cudaError_t
launch (TiledArgs * a, const SdCudaDeviceInfo * info,
    SdCudaTiledGraph ** cache, cudaStream_t stream)
{
  if (*cache && memcmp (&(*cache)->args, a, sizeof (*a)) == 0)
    return cudaGraphLaunch ((*cache)->exec, stream);
  sd_cuda_tiled_graph_free (*cache);
  *cache = NULL;
  const size_t smem = visit_layout (a->T, a->D).total * sizeof (float);
  /* the attribute belongs to the kernel, not to this engine: always the
   * device's limit, so that another engine cannot lower it under us */
  cudaError_t e = cudaFuncSetAttribute (tiled_bp_diagonal_kernel < K >,
      cudaFuncAttributeMaxDynamicSharedMemorySize, info->max_smem_optin);
  if (e != cudaSuccess)
    return e;
  const int threads = visit_threads (a->T);
  const int diagonals = a->tiles_x + a->tiles_y - 1;
  e = cudaStreamBeginCapture (stream, cudaStreamCaptureModeThreadLocal);
  if (e != cudaSuccess)
    return e;
  for (int o = 0; o < a->outer; o++)
    for (int reverse = 0; reverse < 2; reverse++)
      for (int s = 0; s < diagonals; s++) {
        const int d = reverse ? diagonals - 1 - s : s;
        const int n = min (d, a->tiles_y - 1) - max (0, d - a->tiles_x + 1)
            + 1;
        tiled_bp_diagonal_kernel < K > <<<n, threads, smem, stream>>> (*a, d,
            reverse && o + 1 == a->outer);
      }
  cudaGraph_t graph;
  e = cudaStreamEndCapture (stream, &graph);
  if (e != cudaSuccess)
    return e;
  SdCudaTiledGraph *g = (SdCudaTiledGraph *) calloc (1, sizeof (*g));
  if (!g)
    e = cudaErrorMemoryAllocation;
  else
    e = cudaGraphInstantiate (&g->exec, graph, 0);
  cudaGraphDestroy (graph);
  if (e != cudaSuccess) {
    sd_cuda_tiled_graph_free (g);
    return e;
  }
  g->args = *a;
  *cache = g;
  return cudaGraphLaunch (g->exec, stream);
}

static int
label_capacity (int D)
{
  return D <= 16 ? 16 : D <= 32 ? 32 : 64;
}

static size_t
visit_bytes (const SdParams * p)
{
  return visit_layout (p->tile_size, p->num_disparities).total *
      sizeof (float);
}

bool
sd_cuda_tiled_bp_fits (const SdParams * p, int max_smem, SdError * err)
{
  if (p->num_disparities > SD_CUDA_TILED_BP_MAX_DISPARITIES) {
    sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "the CUDA tiled-bp kernels take up to %d disparities, not %d; use "
        "backend=cpu or auto for more", SD_CUDA_TILED_BP_MAX_DISPARITIES,
        p->num_disparities);
    return false;
  }
  if (visit_bytes (p) > (size_t) max_smem) {
    int t = p->tile_size;
    SdParams q = *p;
    while (t > SD_MIN_TILE_SIZE && (q.tile_size = t,
            visit_bytes (&q) > (size_t) max_smem))
      t--;
    sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "a %dx%d tile with %d disparities needs %zu KB of shared memory and "
        "this GPU gives a block %d KB; use tile-size %d or less, or "
        "backend=cpu or auto", p->tile_size, p->tile_size,
        p->num_disparities, visit_bytes (p) / 1024, max_smem / 1024, t);
    return false;
  }
  return true;
}

typedef struct
{
  int tiles_x, tiles_y;
  size_t vertical, horizontal;  /* floats of east (= west), south (= north) */
  size_t data;                  /* floats of the tile-major data costs */
} TiledGeometry;

static TiledGeometry
geometry (const SdParams * p, int w, int h)
{
  TiledGeometry g;
  g.tiles_x = sd_cuda_div_up (w, p->tile_size);
  g.tiles_y = sd_cuda_div_up (h, p->tile_size);
  g.vertical = (size_t) (g.tiles_x - 1) * h * p->num_disparities;
  g.horizontal = (size_t) (g.tiles_y - 1) * w * p->num_disparities;
  g.data = (size_t) g.tiles_x * g.tiles_y * p->tile_size * p->tile_size *
      p->num_disparities;
  return g;
}

static size_t
align_floats (size_t n)
{
  return (n + 63) & ~(size_t) 63;
}

size_t
sd_cuda_tiled_bp_workspace_bytes (const SdParams * p, int w, int h)
{
  const TiledGeometry g = geometry (p, w, h);
  const size_t npix = (size_t) w * h;
  return sizeof (float) * (align_floats (4 * npix) + align_floats (2 *
          (g.vertical + g.horizontal)) + align_floats (g.data) +
      (size_t) sd_cuda_bp_pitch (w) * h * p->num_disparities);
}

cudaError_t
sd_cuda_tiled_bp (const SdParams * p, const uint8_t * images,
    void *workspace, int16_t * disp, uint32_t * right_key, int w, int h,
    const SdCudaDeviceInfo * info, SdCudaTiledGraph ** cache,
    cudaStream_t stream)
{
  const TiledGeometry g = geometry (p, w, h);
  const size_t npix = (size_t) w * h;
  float *smooth = (float *) workspace;  /* left, right; then 2 of scratch */
  float *bounds = smooth + align_floats (4 * npix);
  TiledArgs a;
  memset (&a, 0, sizeof (a));   /* compared bytewise by the graph cache */
  a.left = smooth;
  a.right = smooth + npix;
  a.east = bounds;
  a.west = a.east + g.vertical;
  a.south = a.west + g.vertical;
  a.north = a.south + g.horizontal;
  a.data = bounds + align_floats (2 * (g.vertical + g.horizontal));
  a.belief = a.data + align_floats (g.data);
  a.w = w;
  a.h = h;
  a.D = p->num_disparities;
  a.T = p->tile_size;
  a.tiles_x = g.tiles_x;
  a.tiles_y = g.tiles_y;
  a.min_disparity = p->min_disparity;
  a.inner = p->inner_iterations;
  a.outer = p->outer_iterations;
  a.weight = p->data_weight;
  a.trunc = p->data_trunc;
  a.disc_trunc = sd_params_bp_disc_trunc (p);

  cudaError_t e = sd_cuda_bp_images (p, images, smooth, smooth + 2 * npix,
      w, h, stream);
  if (e == cudaSuccess && g.vertical + g.horizontal > 0)
    e = cudaMemsetAsync (bounds, 0, sizeof (float) * 2 * (g.vertical +
            g.horizontal), stream);
  if (e != cudaSuccess)
    return e;
  tile_data_kernel <<<dim3 (sd_cuda_div_up (w, 128), h), 128, 0, stream>>>
      (a);
  switch (label_capacity (a.D)) {
    case 16:
      e = launch < 16 > (&a, info, cache, stream);
      break;
    case 32:
      e = launch < 32 > (&a, info, cache, stream);
      break;
    default:
      e = launch < 64 > (&a, info, cache, stream);
  }
  if (e != cudaSuccess)
    return e;
  return sd_cuda_bp_read_out (p, a.belief, disp, right_key, w, h, stream);
}
