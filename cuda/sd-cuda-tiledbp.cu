/* Tiled belief propagation on the GPU (algorithm=tiled-bp), after the CPU
 * reference common/cpu/tiledbp.c, which says what a tile visit is and why
 * it computes in fixed point: every operation is exact, so the order of
 * sums and minima is free here and the labels are still the CPU's.
 *
 * Order: the tiles of one anti-diagonal (tx + ty = d) never touch each
 * other and read only what the diagonals before (raster pass) or after
 * (reverse pass) wrote, so one thread block visits each tile of a diagonal
 * at once, and the diagonals run one launch each, in order on the
 * engine's stream.  The launches of every pass are captured once per
 * (size, parameters) into a CUDA graph and replayed (sd-cuda-graph.h).
 * Each launch after the first is programmatic (PDL): it may start while
 * the one before runs, clears its tile and loads its data costs, which no
 * diagonal writes, and only then waits (sd_chain_wait) for
 * the diagonal before to finish before it reads the edge messages that
 * diagonal sent.
 * Measured on an H100, 25 to 35 % faster than one cooperative launch that
 * prepares the next tile and then syncs the grid (docs/performance.md).
 *
 * A visit keeps the tile in shared memory as the CPU's grid: data costs
 * and the four message arrays with a one-pixel halo for what the
 * neighbours sent.  BP-M's right and left sweeps read only the vertical
 * messages and write one horizontal array each, and the down and up sweeps
 * the other way round, so each pair runs at once, a line (row or column)
 * and direction to four threads, 8T threads.  A line's messages are a
 * chain, each built from the one before (2T messages per inner iteration,
 * times the tiles on a path through the diagonals), and that chain bounds
 * the time: with one thread per line, one warp carried a tile's sweep and
 * issued about 175 instructions a message (docs/performance.md).  Four
 * threads share a message instead, a quarter of the labels each in
 * registers: each runs the forward and backward passes of the
 * min-convolution over its labels, takes what the lower (forward) and
 * higher (backward) quarters end with and the smallest entry from the
 * other three by shuffles, and finishes its labels.  In shared memory a
 * quarter is 16-byte groups, and lines are spaced so that two lines' reads
 * fall in distinct banks (line_stride). */
#include "sd-cuda-bp.h"
#include "sd-cuda-tiledbp.h"
#include "sd-cuda-chain.cuh"

#define SIDES 4
/* threads that build one message, a quarter of the labels each */
#define LANES 4
/* a label above D: never a minimum, and a sum of it and messages (at most
 * disc_trunc each) cannot overflow; the data costs hold it above D */
#define ABSENT (1 << 30)

typedef struct
{
  SdCudaBpCost cost;            /* what the data costs are made of */
  int *data;                    /* fixed-point data costs, tile by tile:
                                 * T * T pixels of K labels each (ABSENT
                                 * from D on), rows of T pixels */
  /* what tile column c sent east / tile column c + 1 sent west, per image
   * row; what tile row r sent south / tile row r + 1 sent north, per
   * image column (D labels each, as the CPU lays them out) */
  int *east, *west, *south, *north;
  float *belief;                /* sd-cuda-bp.h's layout */
  int w, h, D, K, T, tiles_x, tiles_y, min_disparity, inner, outer;
  int disc_trunc;
} TiledArgs;

#define VISIT_THREADS 256
/* halo labels a thread loads at once */
#define HALO_LOADS 4

/* 2T lines of LANES threads sweep; more copy and fill */
static int
visit_threads (int T)
{
  return max (VISIT_THREADS, 32 * sd_cuda_div_up (2 * T * LANES, 32));
}

/* The labels the kernels hold for D: 16, 32 or 64. */
__host__ __device__ static inline int
label_capacity (int D)
{
  return D <= 16 ? 16 : D <= 32 ? 32 : 64;
}

/* The spacing of two lines of a sweep (pixels or rows), at least n ints.
 * Eight threads' 16-byte reads are served at once: two lines' four
 * quarters.  With 16 labels a line's quarters fill 16 banks, so lines are
 * 16 ints apart modulo 32; with more, a line's quarters are 32 bytes or
 * more apart and the other line's must fall between them: 4 ints modulo 8
 * (with 64 labels a line's own quarters still meet two by two). */
__host__ __device__ static inline int
line_stride (int n, int K)
{
  const int step = K == 16 ? 32 : 8, at = K == 16 ? 16 : 4;
  return n + ((at - n % step) % step + step) % step;
}

/* How a visit lays out shared memory: five arrays over the (T + 2)^2
 * grid, data costs first, then the messages in SdBpGrid's order.
 * Offsets are in ints. */
typedef struct
{
  int pixel;                    /* from one pixel to the next */
  int row;                      /* from one row to the next */
  int grid;                     /* ints of one array */
  int total;                    /* ints of everything */
} VisitLayout;

__host__ __device__ static inline VisitLayout
visit_layout (int T, int D)
{
  const int K = label_capacity (D);
  VisitLayout l;
  l.pixel = line_stride (K, K);
  l.row = line_stride ((T + 2) * l.pixel, K);
  l.grid = (T + 2) * l.row;
  l.total = (1 + SIDES) * l.grid;
  return l;
}

/* This thread's place among the LANES that build a message, and what it
 * adds to the ends of the other quarters' passes: their distance from
 * this quarter, or NEVER where a quarter is not on that side. */
#define NEVER (1 << 29)
typedef struct
{
  int lane;                     /* which quarter of the labels */
  int from_below[LANES - 1];    /* for the quarter j below, j = 1, 2, 3 */
  int from_above[LANES - 1];    /* for the quarter j above */
} Quarter;

template < int M > __device__ __forceinline__ Quarter
quarter (void)
{
  Quarter q;
  q.lane = threadIdx.x % LANES;
#pragma unroll
  for (int j = 1; j < LANES; j++) {
    q.from_below[j - 1] = q.lane >= j ? (j - 1) * M * SD_TILED_BP_ONE :
        NEVER;
    q.from_above[j - 1] = q.lane + j < LANES ? (j - 1) * M *
        SD_TILED_BP_ONE : NEVER;
  }
  return q;
}

/* sd_tiled_bp_message() by LANES threads of a warp that runs it whole
 * (the shuffles name every thread): h holds this thread's quarter of data
 * plus the three incoming messages and becomes its quarter of the message.
 * Exact integers, so the passes may be cut into quarters: the forward
 * pass at label k is the smaller of this quarter's own pass and what the
 * quarters below end with, plus the distance. */
template < int M > __device__ __forceinline__ void
message (int (&h)[M], const Quarter & q, int disc_trunc)
{
  int fwd[M], bwd[M], lowest = h[0];
  fwd[0] = h[0];
#pragma unroll
  for (int k = 1; k < M; k++) {
    fwd[k] = min (fwd[k - 1] + SD_TILED_BP_ONE, h[k]);
    lowest = min (lowest, h[k]);
  }
  bwd[M - 1] = h[M - 1];
#pragma unroll
  for (int k = M - 2; k >= 0; k--)
    bwd[k] = min (bwd[k + 1] + SD_TILED_BP_ONE, h[k]);
  /* the forward pass entering this quarter (at label lane M - 1), the
   * backward one (at label lane M + M), and the smallest entry */
  int below[LANES - 1], above[LANES - 1], others[LANES - 1];
#pragma unroll
  for (int j = 1; j < LANES; j++) {
    below[j - 1] = __shfl_sync (0xffffffffu, fwd[M - 1],
        (q.lane - j) & (LANES - 1), LANES) + q.from_below[j - 1];
    above[j - 1] = __shfl_sync (0xffffffffu, bwd[0],
        (q.lane + j) & (LANES - 1), LANES) + q.from_above[j - 1];
    others[j - 1] = __shfl_sync (0xffffffffu, lowest,
        (q.lane + j) & (LANES - 1), LANES);
  }
  /* three-way minima: no chain of dependent ones */
  const int into_fwd = min (min (below[0], below[1]), min (below[2],
          ABSENT));
  const int into_bwd = min (min (above[0], above[1]), min (above[2],
          ABSENT));
  const int all_lowest = min (min (lowest, others[0]), min (others[1],
          others[2]));
#pragma unroll
  for (int k = 0; k < M; k++) {
    const int f = min (fwd[k], into_fwd + (k + 1) * SD_TILED_BP_ONE);
    const int b = min (bwd[k], into_bwd + (M - k) * SD_TILED_BP_ONE);
    h[k] = min (min (f, b) - all_lowest, disc_trunc);
  }
}

/* h[k] = the sum over the sources of this quarter's labels. */
template < int M, int N > __device__ __forceinline__ void
add_quarters (int (&h)[M], const int4 * const (&src)[N])
{
#pragma unroll
  for (int g = 0; g < M / 4; g++) {
    int4 sum = src[0][g];
#pragma unroll
    for (int i = 1; i < N; i++) {
      const int4 v = src[i][g];
      sum.x += v.x;
      sum.y += v.y;
      sum.z += v.z;
      sum.w += v.w;
    }
    h[4 * g] = sum.x;
    h[4 * g + 1] = sum.y;
    h[4 * g + 2] = sum.z;
    h[4 * g + 3] = sum.w;
  }
}

template < int M > __device__ __forceinline__ void
store_quarter (int4 * dst, const int (&v)[M])
{
#pragma unroll
  for (int g = 0; g < M / 4; g++)
    dst[g] = make_int4 (v[4 * g], v[4 * g + 1], v[4 * g + 2], v[4 * g + 3]);
}

/* One line of a BP-M sweep, this thread's quarter of the labels: n pixels
 * from grid index g, stepping gs; each but the last sends its message into
 * out at its own index (when store), built in place from what the
 * previous pixel sent (kept in registers) plus the data and the two
 * messages across the line, at offsets o1 and o2 in s1 and s2.  Indices
 * count 16-byte groups. */
template < int M > __device__ __forceinline__ void
sweep_line (const int4 * __restrict__ data, int4 * __restrict__ out,
    const int4 * __restrict__ s1, int o1, const int4 * __restrict__ s2,
    int o2, int g, int gs, int n, bool store, const Quarter & q,
    int disc_trunc)
{
  g += q.lane * M / 4;
  int along[M], across[M];
  {
    const int4 *const src[1] = { out + g - gs };
    add_quarters (along, src);
  }
  {
    const int4 *const src[3] = { data + g, s1 + g + o1, s2 + g + o2 };
    add_quarters (across, src);
  }
  for (int i = 0; i + 1 < n; i++, g += gs) {
#pragma unroll
    for (int k = 0; k < M; k++)
      along[k] += across[k];
    /* the next pixel's inputs (the last round reads the line's last
     * pixel, unused), loaded while this message is built */
    const int4 *const src[3] = { data + g + gs, s1 + g + gs + o1,
      s2 + g + gs + o2
    };
    add_quarters (across, src);
    message (along, q, disc_trunc);
    if (store)
      store_quarter (out + g, along);
  }
}

/* Where the boundary store keeps what tile (tx, ty) sends across its edge
 * on side from the edge pixel in image row or column i (the CPU's
 * edge_message). */
__device__ __forceinline__ int *
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
visit (const TiledArgs & a, int *sm, int tx, int ty, bool write_belief)
{
  constexpr int M = K / LANES;
  const int D = a.D, T = a.T;
  const VisitLayout l = visit_layout (T, D);
  const int P = l.pixel, R = l.row;
  const int x0 = tx * T, y0 = ty * T;
  const int w = min (T, a.w - x0), h = min (T, a.h - y0);
  int *data = sm;
  /* the arrays a pixel's sent messages are kept in, by side sent to, as
   * SdBpGrid: up, down, left, right; grid pixel (x, y) at y R + x P */
  int *up = data + l.grid, *down = up + l.grid;
  int *left = down + l.grid, *right = left + l.grid;
  const int tid = threadIdx.x, nt = blockDim.x;
  const Quarter q = quarter < M > ();

  /* Before the diagonal before is done: what no diagonal writes.  The
   * messages restart from zero, the halo's too ("no neighbour"). */
  for (int i = tid; i < SIDES * l.grid / 4; i += nt)
    reinterpret_cast < int4 * >(up)[i] = make_int4 (0, 0, 0, 0);
  const int groups = K / 4;
  const int4 *tile_data = reinterpret_cast < const int4 * >(a.data +
      ((size_t) ty * a.tiles_x + tx) * T * T * K);
  for (int i = tid; i < T * T * groups; i += nt) {
    const int pixel = i / groups, g = i - pixel * groups;
    const int x = pixel % T, y = pixel / T;
    if (x < w && y < h)
      reinterpret_cast < int4 * >(data + (y + 1) * R + (x + 1) * P)[g] =
          tile_data[i];
  }
  __syncthreads ();
  /* the diagonal before done (at once for the graph's first launch); the
   * next may start its own preparation */
  sd_chain_wait ();

  /* what the neighbours sent, into the halo: a label of an edge pixel a
   * thread, HALO_LOADS of them in flight at once (one trip to L2, where
   * a loop that stored each before loading the next made one each);
   * where no tile sends, the halo keeps its zero */
  auto halo_cell = [&](int i, int **dst) -> const int *{
    const int e = i / D, k = i - e * D;
    if (e < h) {                /* from the left tile, which sent east */
      *dst = right + (e + 1) * R + k;
      return tx > 0 ? edge_message (a, tx - 1, ty, SD_BP_FROM_RIGHT,
          y0 + e) + k : NULL;
    }
    if (e < 2 * h) {            /* from the right tile, sent west */
      *dst = left + (e - h + 1) * R + (w + 1) * P + k;
      return tx + 1 < a.tiles_x ? edge_message (a, tx + 1, ty,
          SD_BP_FROM_LEFT, y0 + e - h) + k : NULL;
    }
    if (e < 2 * h + w) {        /* from the tile above, sent south */
      *dst = down + (e - 2 * h + 1) * P + k;
      return ty > 0 ? edge_message (a, tx, ty - 1, SD_BP_FROM_BELOW,
          x0 + e - 2 * h) + k : NULL;
    }
    /* from the tile below, sent north */
    *dst = up + (h + 1) * R + (e - 2 * h - w + 1) * P + k;
    return ty + 1 < a.tiles_y ? edge_message (a, tx, ty + 1,
        SD_BP_FROM_ABOVE, x0 + e - 2 * h - w) + k : NULL;
  };
  const int halo = 2 * (w + h) * D;
  for (int base = tid; base < halo; base += HALO_LOADS * nt) {
    int *dst[HALO_LOADS], v[HALO_LOADS];
#pragma unroll
    for (int r = 0; r < HALO_LOADS; r++) {
      const int *src = base + r * nt < halo ? halo_cell (base + r * nt,
          &dst[r]) : NULL;
      v[r] = src ? *src : 0;
    }
#pragma unroll
    for (int r = 0; r < HALO_LOADS; r++)
      if (base + r * nt < halo)
        *dst[r] = v[r];
  }
  __syncthreads ();

  /* LANES threads a line; the warps that hold a line run whole (the
   * shuffles need every thread), those past the last line repeating line
   * 0 without storing */
  const int line = tid / LANES, warp_line = tid / 32 * 32 / LANES;
  const int4 *data4 = reinterpret_cast < const int4 * >(data);
  int4 *up4 = reinterpret_cast < int4 * >(up);
  int4 *down4 = reinterpret_cast < int4 * >(down);
  int4 *left4 = reinterpret_cast < int4 * >(left);
  int4 *right4 = reinterpret_cast < int4 * >(right);
  const int P4 = P / 4, R4 = R / 4;
  for (int it = 0; it < a.inner; it++) {
    /* right and left sweeps: row line % h, the vertical messages across */
    if (warp_line < 2 * h) {
      const int l = line < 2 * h ? line : 0;
      const int y = l % h + 1, to_left = l >= h;
      sweep_line < M > (data4, to_left ? left4 : right4, up4, R4, down4,
          -R4, y * R4 + (to_left ? w : 1) * P4, to_left ? -P4 : P4, w,
          line < 2 * h, q, a.disc_trunc);
    }
    __syncthreads ();
    /* down and up sweeps: column line % w */
    if (warp_line < 2 * w) {
      const int l = line < 2 * w ? line : 0;
      const int x = l % w + 1, to_up = l >= w;
      sweep_line < M > (data4, to_up ? up4 : down4, left4, P4, right4, -P4,
          (to_up ? h : 1) * R4 + x * P4, to_up ? -R4 : R4, h,
          line < 2 * w, q, a.disc_trunc);
    }
    __syncthreads ();
  }

  /* the tile's own edge messages, from its final state: an edge pixel to
   * LANES threads, every thread through the same rounds (the shuffles),
   * those past the last edge pixel or without a neighbour tile there
   * building a message they do not store */
  for (int round = 0; round < 2 * (w + h); round += nt / LANES) {
    const int e = round + line;
    int side, x, y, along, ntx = tx, nty = ty;
    if (e < h) {
      side = SD_BP_FROM_RIGHT, x = w, y = e + 1, along = y0 + e, ntx++;
    } else if (e < 2 * h) {
      side = SD_BP_FROM_LEFT, x = 1, y = e - h + 1, along = y0 + e - h, ntx--;
    } else if (e < 2 * h + w) {
      side = SD_BP_FROM_BELOW, x = e - 2 * h + 1, y = h;
      along = x0 + x - 1, nty++;
    } else {
      side = SD_BP_FROM_ABOVE, x = min (e - 2 * h - w + 1, w), y = 1;
      along = x0 + x - 1, nty--;
    }
    const bool sends = e < 2 * (w + h) && ntx >= 0 && ntx < a.tiles_x
        && nty >= 0 && nty < a.tiles_y;
    const int g = (y * R + x * P + q.lane * M) / 4;
    const int4 *below = up4 + g + R4, *above = down4 + g - R4;
    const int4 *from_right = left4 + g + P4, *from_left = right4 + g - P4;
    /* data and the three incoming messages that are not from side */
    const int4 *const src[4] = { data4 + g,
      side == SD_BP_FROM_BELOW ? above : below,
      side == SD_BP_FROM_BELOW || side == SD_BP_FROM_ABOVE ? from_right :
          above, side == SD_BP_FROM_LEFT ? from_right : from_left
    };
    int msg[M];
    add_quarters (msg, src);
    message (msg, q, a.disc_trunc);
    if (!sends)
      continue;
    int *dst = edge_message (a, tx, ty, side, along) + q.lane * M;
#pragma unroll
    for (int k = 0; k < M; k++)
      if (q.lane * M + k < D)
        dst[k] = msg[k];
  }

  if (!write_belief)
    return;
  /* beliefs: data plus the four incoming messages, in cost units */
  const int pitch = sd_cuda_bp_pitch (a.w);
  for (int i = tid; i < w * h * D; i += nt) {
    const int pixel = i / D, k = i - pixel * D;
    const int x = pixel % w + 1, y = pixel / w + 1;
    const int g = y * R + x * P + k;
    const int b = data[g] + up[g + R] + down[g - R] + left[g + P] +
        right[g - P];
    a.belief[sd_cuda_bp_at (x0 + x - 1, y0 + y - 1, k, D, pitch)] =
        __fmul_rn (__int2float_rn (b), 1.0f / SD_TILED_BP_ONE);
  }
}

/* The fixed-point data costs of every tile, tile-major (see
 * TiledArgs.data); pixels of a partial tile outside the image are left
 * alone, never read. */
__global__ void
tile_data_kernel (TiledArgs a)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= a.w)
    return;
  const int T = a.T, D = a.D;
  const size_t row = (size_t) y * a.w;
  int *dst = a.data + (((size_t) (y / T) * a.tiles_x + x / T) * T * T +
      (size_t) (y % T) * T + x % T) * a.K;
  for (int k = 0; k < a.K; k++) {
    const int xr = min (max (x - a.min_disparity - k, 0), a.w - 1);
    dst[k] = k < D ? __float2int_rn (__fmul_rn (sd_cuda_bp_data_cost
            (a.cost, row + x, row + xr), SD_TILED_BP_ONE)) : ABSENT;
  }
}

/* The tiles of diagonal d, one block each. */
template < int K > __global__ void
tiled_bp_diagonal_kernel (TiledArgs a, int d, int belief)
{
  extern __shared__ int4 sm4[];
  const int ty = max (0, d - a.tiles_x + 1) + (int) blockIdx.x;
  visit < K > (a, reinterpret_cast < int *>(sm4), d - ty, ty, belief);
}

/* Every pass's launches: the diagonals of each raster and reverse pass,
 * captured into one graph (sd_cuda_tiled_bp). */
template < int K > static cudaError_t
enqueue_passes (const void *args, cudaStream_t stream)
{
  const TiledArgs *a = (const TiledArgs *) args;
  const int diagonals = a->tiles_x + a->tiles_y - 1;
  const dim3 block (visit_threads (a->T));
  const size_t smem = visit_layout (a->T, a->D).total * sizeof (int);
  cudaError_t e = cudaSuccess;
  for (int o = 0; o < a->outer && e == cudaSuccess; o++)
    for (int reverse = 0; reverse < 2 && e == cudaSuccess; reverse++)
      for (int s = 0; s < diagonals && e == cudaSuccess; s++) {
        const int d = reverse ? diagonals - 1 - s : s;
        const dim3 grid (min (d, a->tiles_y - 1) - max (0,
                d - a->tiles_x + 1) + 1);
        /* every launch but the graph's first follows a diagonal */
        e = sd_cuda_launch (o + reverse + s > 0,
            tiled_bp_diagonal_kernel < K >, grid, block, smem, stream, *a, d,
            (int) (reverse && o + 1 == a->outer));
      }
  return e;
}

template < int K > static cudaError_t
launch (const TiledArgs * a, const SdCudaDeviceInfo * info,
    SdCudaGraph ** cache, cudaStream_t stream)
{
  /* the attribute belongs to the kernel, not to this engine: always the
   * device's limit, so that another engine cannot lower it under us */
  const cudaError_t e = cudaFuncSetAttribute (tiled_bp_diagonal_kernel < K >,
      cudaFuncAttributeMaxDynamicSharedMemorySize, info->max_smem_optin);
  if (e != cudaSuccess)
    return e;
  return sd_cuda_graph_launch (cache, a, sizeof (*a), enqueue_passes < K >,
      stream);
}

static size_t
visit_bytes (const SdParams * p)
{
  return visit_layout (p->tile_size, p->num_disparities).total *
      sizeof (int);
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
  size_t vertical, horizontal;  /* ints of east (= west), south (= north) */
  size_t data;                  /* ints of the tile-major data costs */
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
      label_capacity (p->num_disparities);
  return g;
}

/* Workspace pieces start 256 bytes apart (64 words of 4 bytes). */
static size_t
align_words (size_t n)
{
  return (n + 63) & ~(size_t) 63;
}

size_t
sd_cuda_tiled_bp_workspace_bytes (const SdParams * p, int w, int h)
{
  const TiledGeometry g = geometry (p, w, h);
  const size_t npix = (size_t) w * h;
  return 4 * (align_words (4 * npix) + align_words (2 * (g.vertical +
              g.horizontal)) + align_words (g.data) +
      (size_t) sd_cuda_bp_pitch (w) * h * p->num_disparities);
}

cudaError_t
sd_cuda_tiled_bp (const SdParams * p, const uint8_t * images,
    const uint64_t * census, void *workspace, const SdCudaReadOut * out,
    int w, int h,
    const SdCudaDeviceInfo * info, SdCudaGraph ** cache,
    cudaStream_t stream)
{
  const TiledGeometry g = geometry (p, w, h);
  const size_t npix = (size_t) w * h;
  float *smooth = (float *) workspace;  /* left, right; then 2 of scratch */
  int *bounds = (int *) (smooth + align_words (4 * npix));
  TiledArgs a;
  memset (&a, 0, sizeof (a));   /* compared bytewise by the graph cache */
  a.cost = sd_cuda_bp_cost_source (p, smooth, census, npix);
  a.east = bounds;
  a.west = a.east + g.vertical;
  a.south = a.west + g.vertical;
  a.north = a.south + g.horizontal;
  a.data = bounds + align_words (2 * (g.vertical + g.horizontal));
  a.belief = (float *) (a.data + align_words (g.data));
  a.w = w;
  a.h = h;
  a.D = p->num_disparities;
  a.K = label_capacity (a.D);
  a.T = p->tile_size;
  a.tiles_x = g.tiles_x;
  a.tiles_y = g.tiles_y;
  a.min_disparity = p->min_disparity;
  a.inner = p->inner_iterations;
  a.outer = p->outer_iterations;
  a.disc_trunc = sd_tiled_bp_fixed (sd_params_bp_disc_trunc (p));

  cudaError_t e = sd_cuda_bp_images (p, images, smooth, smooth + 2 * npix,
      w, h, stream);
  if (e == cudaSuccess && g.vertical + g.horizontal > 0)
    e = cudaMemsetAsync (bounds, 0, sizeof (int) * 2 * (g.vertical +
            g.horizontal), stream);
  if (e != cudaSuccess)
    return e;
  tile_data_kernel <<<dim3 (sd_cuda_div_up (w, 128), h), 128, 0, stream>>>
      (a);
  switch (a.K) {
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
  return sd_cuda_bp_read_out (p, a.belief, out, w, h, stream);
}
