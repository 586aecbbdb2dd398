/* Hierarchical belief propagation on the GPU (algorithm=hbp).
 *
 * The CPU reference (common/cpu/hbp.c, bp.c) fixes every float operation and
 * its order; the kernels repeat them with explicit round-to-nearest
 * intrinsics so that nvcc cannot fuse a multiply and an add into one
 * rounding the CPU does not have.  With float messages most pixels then come
 * out bit-identical; the rest differ where expf/the compilers' constant
 * folding does (see tests/cuda).
 *
 * Layout: every array of a level is (row, disparity, column), with the
 * columns of each row split by parity (the even ones, then the odd ones).
 * In a checkerboard half-step the pixels that send in a row all have one
 * parity, and their neighbours in the rows above and below have it too,
 * while their left and right neighbours have the other: with the split,
 * consecutive threads read and write consecutive addresses everywhere.
 * One workspace holds the float images, the data costs of all levels and
 * the four message arrays of all levels (float or half); messages are
 * stored at their sender, as on the CPU.
 *
 * A thread computes one message of one pixel (four threads a pixel; a
 * block holds 32 pixels, or 16 or 8 at large ranges: update_pixels), one
 * disparity after the other, exactly as the CPU does, with the message
 * under construction in shared memory
 * (disparity-major, so that a warp's accesses fall in distinct banks).
 * Measured against one thread a pixel and other block shapes in
 * docs/performance.md (hbp). */
#include <cuda_fp16.h>
#include <string.h>

#include "sd-cuda-bp.h"
#include "sd-cuda-hbp.h"

#define BLOCK 128               /* threads of the per-pixel kernels */
/* pixels of a block of the message kernel, at most (its threads: 4 a
 * pixel); fewer where the messages' shared memory leaves an SM few threads
 * (update_pixels) */
#define UPDATE_PIXELS 32
#define UPDATE_BLOCK (4 * UPDATE_PIXELS)

/* sd-cuda-bp.h's layout, under a name short enough for the indexing
 * expressions below */
__device__ __forceinline__ size_t
at (int x, int y, int k, int D, int pitch)
{
  return sd_cuda_bp_at (x, y, k, D, pitch);
}

__device__ __forceinline__ float
to_float (float v)
{
  return v;
}

__device__ __forceinline__ float
to_float (__half v)
{
  return __half2float (v);
}

__device__ __forceinline__ void
store_msg (float *p, float v)
{
  *p = v;
}

__device__ __forceinline__ void
store_msg (__half * p, float v)
{
  *p = __float2half_rn (v);
}

/* The per-pixel stages (data costs, their pyramid, the copy-down and the
 * beliefs) run a thread per element of a level's array: a block of BLOCK
 * consecutive slots of one row of one disparity (the layout's order, so
 * loads and stores are consecutive), grid (slots, D, rows).  A thread per
 * pixel walking its D disparities spent most of its time waiting on each
 * step's loads: on an H100 the copy-down took 1.24 ms at 900x750 with 128
 * disparities for 1.7 GB moved (a CUPTI trace, docs/performance.md, hbp). */
static dim3
element_grid (int w, int h, int D)
{
  return dim3 (sd_cuda_div_up (sd_cuda_bp_pitch (w), BLOCK), D, h);
}

/* This thread's element of a w-wide level in element_grid(): false for the
 * slots past the row (the odd half's padding when w is odd). */
__device__ __forceinline__ bool
thread_element (int w, int *x, int *y, int *k)
{
  const int slot = blockIdx.x * blockDim.x + threadIdx.x;
  const int half = sd_cuda_bp_pitch (w) / 2;
  *x = slot < half ? 2 * slot : 2 * (slot - half) + 1;
  *y = blockIdx.z;
  *k = blockIdx.y;
  return slot < 2 * half && *x < w;
}

__global__ void
data_cost_kernel (SdCudaBpCost c, float *cost, int w, int D,
    int min_disparity)
{
  int x, y, k;
  if (!thread_element (w, &x, &y, &k))
    return;
  const size_t row = (size_t) y * w;
  /* a match left of the right image reads its edge pixel */
  const int xr = min (max (x - min_disparity - k, 0), w - 1);
  cost[at (x, y, k, D, sd_cuda_bp_pitch (w))] = sd_cuda_bp_data_cost (c,
      row + x, row + xr);
}

/* a coarse pixel's cost is the sum of its children, row by row */
__global__ void
sum_up_kernel (const float *fine, float *coarse, int fw, int fh, int cw,
    int D)
{
  int x, y, k;
  if (!thread_element (cw, &x, &y, &k))
    return;
  const int fp = sd_cuda_bp_pitch (fw);
  float acc = 0.0f;
  for (int j = 0; j < 2; j++)
    for (int i = 0; i < 2; i++) {
      const int fx = 2 * x + i, fy = 2 * y + j;
      if (fx < fw && fy < fh)
        acc = __fadd_rn (acc, fine[at (fx, fy, k, D, fp)]);
    }
  coarse[at (x, y, k, D, sd_cuda_bp_pitch (cw))] = acc;
}

/* --- messages ------------------------------------------------------------ */

template < typename T > struct Messages
{
  T *up, *down, *left, *right;
};

/* a fine pixel starts from its coarse parent's messages */
template < typename T > __global__ void
copy_down_kernel (Messages < T > coarse, Messages < T > fine, int cw, int fw,
    int D)
{
  int x, y, k;
  if (!thread_element (fw, &x, &y, &k))
    return;
  const size_t from = at (x / 2, y / 2, k, D, sd_cuda_bp_pitch (cw));
  const size_t to = at (x, y, k, D, sd_cuda_bp_pitch (fw));
  fine.up[to] = coarse.up[from];
  fine.down[to] = coarse.down[from];
  fine.left[to] = coarse.left[from];
  fine.right[to] = coarse.right[from];
}

/* One incoming message: its disparity 0, and whether its sender exists. */
template < typename T > struct Incoming
{
  const T *base;
  bool present;
};

/* What the forward pass reads for one disparity: the data cost and the
 * three incoming messages as stored (read only where the sender exists).
 * Half messages are converted where they are added, not where they are
 * loaded: a conversion next to its load waits for it, and so did every
 * step with the reads ahead below. */
template < typename T > struct SendInputs
{
  float data;
  T a, b, c;
};

/* Reads that go out this many disparities ahead of the forward pass: each
 * thread's pass is one dependency chain, and without them every step waited
 * for its four loads.  4 and 8 were slower than 6 at one thread a pixel, 8
 * within 4 % of it at four (docs/performance.md, hbp). */
#define SEND_READ_AHEAD 6

/* sd_bp_message() for one pixel: h = data + a + b + c (those present, in
 * that order), the forward pass folded into the same loop, then the
 * backward pass, the cap and the sum, and the shift to zero mean - each
 * pass in the CPU's order, on the message kept in shared memory (h[k] at
 * scratch[k * blockDim.x]).  stride: elements from one disparity to the
 * next. */
template < typename T > __device__ __forceinline__ void
send (const float *data, Incoming < T > a, Incoming < T > b,
    Incoming < T > c, T * out, bool present, float *scratch, size_t stride,
    int D, float disc_trunc)
{
  auto load =[&](int k, SendInputs < T > &in) {
    const size_t off = (size_t) k * stride;
    in.data = data[off];
    if (a.present)
      in.a = a.base[off];
    if (b.present)
      in.b = b.base[off];
    if (c.present)
      in.c = c.base[off];
  };
  SendInputs < T > ring[SEND_READ_AHEAD];
#pragma unroll
  for (int r = 0; r < SEND_READ_AHEAD; r++)
    if (r < D)
      load (r, ring[r]);
  float lowest = INFINITY, prev = 0.0f;
  for (int k0 = 0; k0 < D; k0 += SEND_READ_AHEAD) {
#pragma unroll
    for (int r = 0; r < SEND_READ_AHEAD; r++) {
      const int k = k0 + r;
      if (k >= D)
        break;
      float v = ring[r].data;
      if (a.present)
        v = __fadd_rn (v, to_float (ring[r].a));
      if (b.present)
        v = __fadd_rn (v, to_float (ring[r].b));
      if (c.present)
        v = __fadd_rn (v, to_float (ring[r].c));
      if (k + SEND_READ_AHEAD < D)
        load (k + SEND_READ_AHEAD, ring[r]);
      lowest = fminf (lowest, v);
      if (k > 0)
        v = fminf (v, __fadd_rn (prev, 1.0f));
      scratch[k * blockDim.x] = prev = v;
    }
  }
  const float cap = __fadd_rn (lowest, disc_trunc);
  /* backward pass; the chain runs on uncapped values, the cap is stored */
  float next = scratch[(D - 1) * blockDim.x];
  scratch[(D - 1) * blockDim.x] = fminf (next, cap);
  for (int k = D - 2; k >= 0; k--) {
    next = fminf (scratch[k * blockDim.x], __fadd_rn (next, 1.0f));
    scratch[k * blockDim.x] = fminf (next, cap);
  }
  float sum = 0.0f;
  for (int k = 0; k < D; k++)
    sum = __fadd_rn (sum, scratch[k * blockDim.x]);
  const float mean = __fdiv_rn (sum, (float) D);
  if (!present)
    return;
  for (int k = 0; k < D; k++)
    store_msg (out + (size_t) k * stride, __fsub_rn (scratch[k *
                blockDim.x], mean));
}

/* One checkerboard half-step: the pixels with x + y + parity even send,
 * four threads each, one per outgoing message: a message is one chain of
 * D dependent steps, so four short chains finish sooner than one long one
 * and give the small levels four times the threads. */
template < typename T > __global__ void __launch_bounds__ (UPDATE_BLOCK)
update_kernel (const float *data_cost, Messages < T > m, int w, int h, int D,
    int parity, float disc_trunc)
{
  extern __shared__ float scratch_all[];
  float *scratch = scratch_all + threadIdx.x;
  const int y = blockIdx.y;
  const int pixels = blockDim.x / 4;
  const int message = threadIdx.x / pixels;
  const int x = 2 * (blockIdx.x * pixels + threadIdx.x % pixels) +
      ((y + parity) & 1);
  if (x >= w)
    return;
  const int pitch = sd_cuda_bp_pitch (w);
  const size_t stride = pitch, self = at (x, y, 0, D, pitch);
  const Incoming < T > below = { m.up + at (x, y + 1, 0, D, pitch), y + 1 < h };
  const Incoming < T > above = { m.down + at (x, y - 1, 0, D, pitch), y > 0 };
  const Incoming < T > right = { m.left + at (x + 1, y, 0, D, pitch),
    x + 1 < w
  };
  const Incoming < T > left = { m.right + at (x - 1, y, 0, D, pitch), x > 0 };

  /* each outgoing message leaves out what came from its receiver and adds
   * the others in the CPU's order: up (below, right, left), down (above,
   * right, left), left (below, above, right), right (below, above, left) */
  const Incoming < T > a = message == 1 ? above : below;
  const Incoming < T > b = message < 2 ? right : above;
  const Incoming < T > c = message == 2 ? right : left;
  T *const out = message == 0 ? m.up : message == 1 ? m.down :
      message == 2 ? m.left : m.right;
  const bool receiver = message == 0 ? above.present : message == 1 ?
      below.present : message == 2 ? left.present : right.present;
  send (data_cost + self, a, b, c, out + self, receiver, scratch, stride, D,
      disc_trunc);
}

/* belief = data + below + above + right + left, written over the data */
template < typename T > __global__ void
belief_kernel (float *data, Messages < T > m, int w, int h, int D)
{
  int x, y, k;
  if (!thread_element (w, &x, &y, &k))
    return;
  const int pitch = sd_cuda_bp_pitch (w);
  const size_t self = at (x, y, k, D, pitch);
  float b = data[self];
  if (y + 1 < h)
    b = __fadd_rn (b, to_float (m.up[at (x, y + 1, k, D, pitch)]));
  if (y > 0)
    b = __fadd_rn (b, to_float (m.down[at (x, y - 1, k, D, pitch)]));
  if (x + 1 < w)
    b = __fadd_rn (b, to_float (m.left[at (x + 1, y, k, D, pitch)]));
  if (x > 0)
    b = __fadd_rn (b, to_float (m.right[at (x - 1, y, k, D, pitch)]));
  data[self] = b;
}

/* --- the host side -------------------------------------------------------- */

typedef struct
{
  int width, height;
  size_t offset;                /* elements from the start of its array */
} LevelGeometry;

/* Level sizes and the offsets of each level in the all-levels arrays;
 * returns the elements of one all-levels array. */
static size_t
level_geometry (const SdParams * p, int w, int h, LevelGeometry * lv,
    int *n_levels)
{
  const int n = sd_params_bp_levels (p, w, h);
  size_t total = 0;
  for (int l = 0; l < n; l++) {
    lv[l].width = w;
    lv[l].height = h;
    lv[l].offset = total;
    total += (size_t) sd_cuda_bp_pitch (w) * h * p->num_disparities;
    w = (w + 1) / 2;
    h = (h + 1) / 2;
  }
  *n_levels = n;
  return total;
}

static size_t
message_bytes (const SdParams * p)
{
  return p->bp_precision == SD_BP_PRECISION_HALF ? sizeof (__half) :
      sizeof (float);
}

size_t
sd_cuda_hbp_workspace_bytes (const SdParams * p, int w, int h)
{
  LevelGeometry lv[SD_MAX_BP_LEVELS];
  int n;
  const size_t elements = level_geometry (p, w, h, lv, &n);
  const size_t images = (size_t) 4 * w * h * sizeof (float);
  return images + elements * sizeof (float) + 4 * elements *
      message_bytes (p) + 4 * 256;
}

/* What one frame's propagation is enqueued from, after the images: the
 * graph's key (sd-cuda-graph.h), so cleared before it is filled. */
typedef struct
{
  SdCudaBpCost cost;
  float *data;                  /* the data costs of all levels */
  void *msgs;                   /* the four message arrays of all levels */
  size_t elements;              /* of one all-levels array */
  LevelGeometry lv[SD_MAX_BP_LEVELS];
  int n, D, min_disparity, iterations, half;
  int update_pixels;            /* pixels a block of the message kernel */
  float disc_trunc;
} HbpArgs;

/* Level l's four message arrays in a's workspace. */
template < typename T > static Messages < T >
level_messages (const HbpArgs * a, int l)
{
  T *const base = (T *) a->msgs + a->lv[l].offset;
  const Messages < T > m = { base, base + a->elements,
    base + 2 * a->elements, base + 3 * a->elements
  };
  return m;
}

/* The messages under construction: D floats a thread.  The attribute
 * belongs to the kernel, not to this engine, so it is always set to what
 * the largest range needs: another engine, in another thread, setting it
 * for a smaller range between this call and its launches must not make
 * them fail. */
template < typename T > static cudaError_t
allow_update_smem (void)
{
  return cudaFuncSetAttribute (update_kernel < T >,
      cudaFuncAttributeMaxDynamicSharedMemorySize,
      UPDATE_BLOCK * SD_MAX_DISPARITIES * (int) sizeof (float));
}

/* The pixels a block of the message kernel takes at D disparities.  A
 * thread's message needs D floats of shared memory, so above 128
 * disparities a block of 32 pixels (up to 128 KB) leaves room for one or
 * two on an SM and wastes the rest; smaller blocks fill it.  Where they
 * only add a few threads they lose (5 to 16 % at 64 and 128 disparities on
 * an H200), so a smaller block is taken only when it keeps at least a
 * quarter more threads resident than 32 pixels do, the one with the most
 * (the larger on a tie).  docs/performance.md, hbp, has the measurements. */
template < typename T > static cudaError_t
update_pixels (int D, int *pixels)
{
  int resident[UPDATE_PIXELS + 1] = { 0 };
  for (int p = UPDATE_PIXELS; p >= 8; p /= 2) {
    int blocks = 0;
    const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor
        (&blocks, update_kernel < T >, 4 * p, 4 * p * D * sizeof (float));
    if (e != cudaSuccess)
      return e;
    resident[p] = blocks * 4 * p;
  }
  *pixels = UPDATE_PIXELS;
  for (int p = UPDATE_PIXELS / 2; p >= 8; p /= 2)
    if (4 * resident[p] >= 5 * resident[UPDATE_PIXELS]
        && resident[p] > resident[*pixels])
      *pixels = p;
  return cudaSuccess;
}

template < typename T > static cudaError_t
enqueue_levels (const HbpArgs * a, cudaStream_t stream)
{
  const int D = a->D, n = a->n;
  const LevelGeometry *lv = a->lv;
  const int threads = 4 * a->update_pixels;
  const int smem = threads * D * (int) sizeof (float);
  for (int l = n - 1; l >= 0; l--) {
    const int w = lv[l].width, h = lv[l].height;
    const Messages < T > m = level_messages < T > (a, l);
    if (l == n - 1) {
      const size_t bytes = (size_t) sd_cuda_bp_pitch (w) * h * D * sizeof (T);
      cudaMemsetAsync (m.up, 0, bytes, stream);
      cudaMemsetAsync (m.down, 0, bytes, stream);
      cudaMemsetAsync (m.left, 0, bytes, stream);
      cudaMemsetAsync (m.right, 0, bytes, stream);
    } else {
      copy_down_kernel < T > <<<element_grid (w, h, D), BLOCK, 0, stream>>>
          (level_messages < T > (a, l + 1), m, lv[l + 1].width, w, D);
    }
    const dim3 grid (sd_cuda_div_up ((w + 1) / 2, a->update_pixels), h);
    for (int t = 0; t < a->iterations; t++)
      update_kernel < T > <<<grid, threads, smem, stream>>> (a->data +
          lv[l].offset, m, w, h, D, t & 1, a->disc_trunc);
  }
  belief_kernel < T > <<<element_grid (lv[0].width, lv[0].height, D), BLOCK,
      0, stream>>> (a->data, level_messages < T > (a, 0), lv[0].width,
      lv[0].height, D);
  return cudaGetLastError ();
}

/* Data costs, their pyramid, every level's message passing and the
 * beliefs: about 50 launches on a small frame, captured into one graph. */
static cudaError_t
enqueue_propagation (const void *args, cudaStream_t stream)
{
  const HbpArgs *a = (const HbpArgs *) args;
  const LevelGeometry *lv = a->lv;
  data_cost_kernel <<<element_grid (lv[0].width, lv[0].height, a->D), BLOCK,
      0, stream>>> (a->cost, a->data, lv[0].width, a->D, a->min_disparity);
  for (int l = 1; l < a->n; l++)
    sum_up_kernel <<<element_grid (lv[l].width, lv[l].height, a->D), BLOCK,
        0, stream>>> (a->data + lv[l - 1].offset, a->data + lv[l].offset,
        lv[l - 1].width, lv[l - 1].height, lv[l].width, a->D);
  return a->half ? enqueue_levels < __half > (a, stream) :
      enqueue_levels < float >(a, stream);
}

static uint8_t *
align_256 (uint8_t * p)
{
  return (uint8_t *) (((uintptr_t) p + 255) & ~(uintptr_t) 255);
}

cudaError_t
sd_cuda_hbp (const SdParams * p, const uint8_t * images,
    const uint64_t * census, void *workspace, const SdCudaReadOut * out,
    int w, int h, SdCudaGraph ** cache, cudaStream_t stream)
{
  const size_t npix = (size_t) w * h;
  HbpArgs a;
  memset (&a, 0, sizeof (a));   /* compared bytewise by the graph cache */
  a.elements = level_geometry (p, w, h, a.lv, &a.n);
  uint8_t *ws = (uint8_t *) workspace;
  float *smooth = (float *) align_256 (ws);     /* left, right */
  float *tmp = (float *) align_256 ((uint8_t *) (smooth + 2 * npix));
  a.data = (float *) align_256 ((uint8_t *) (tmp + 2 * npix));
  a.msgs = align_256 ((uint8_t *) (a.data + a.elements));
  a.cost = sd_cuda_bp_cost_source (p, smooth, census, npix);
  a.D = p->num_disparities;
  a.min_disparity = p->min_disparity;
  a.iterations = p->iterations;
  a.half = p->bp_precision == SD_BP_PRECISION_HALF;
  a.disc_trunc = sd_params_bp_disc_trunc (p);

  cudaError_t e = sd_cuda_bp_images (p, images, smooth, tmp, w, h, stream);
  if (e == cudaSuccess)
    e = a.half ? allow_update_smem < __half > () :
        allow_update_smem < float >();
  if (e == cudaSuccess)
    e = a.half ? update_pixels < __half > (a.D, &a.update_pixels) :
        update_pixels < float >(a.D, &a.update_pixels);
  if (e == cudaSuccess)
    e = sd_cuda_graph_launch (cache, &a, sizeof (a), enqueue_propagation,
        stream);
  if (e != cudaSuccess)
    return e;
  return sd_cuda_bp_read_out (p, a.data, out, w, h, stream);
}
