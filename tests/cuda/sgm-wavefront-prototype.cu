/* Prototype, not product code (docs/performance.md, "Strips skewed along
 * the diagonal"): the three downward SGM directions (1,1), (0,1), (-1,1)
 * in one pass over strips skewed along (1,1), checked bit for bit against
 * a CPU recurrence and timed against a copy of the same traffic.
 *
 * Strip k holds pixels kS + y + i, i < S, of row y.  Predecessors of pixel
 * i at row y-1: (1,1) -> i (its own registers), (0,1) -> i+1, (-1,1) ->
 * i+2; i+1, i+2 >= S belong to strip k+1, so a strip depends on its right
 * neighbour only: a wavefront, no cycle.  A block per strip at a time, a
 * 16-lane group per pixel holding all three directions; blocks take strips
 * from right to left by a ticket; the two or three vectors a strip hands
 * its left neighbour each row go through a ring in global memory as
 * (value, row tag) pairs, so a reader needs no fence, only a tag check.
 *
 * Output: out = in + L(1,1) + L(0,1) + L(-1,1), 16-bit, the project's
 * layout (16 lanes x 8 slots, D = 128).
 *
 * Build and run (H100):
 *   nvcc -O3 -std=c++17 -I common -I cuda -gencode arch=compute_90,code=sm_90 \
 *     -o sgm-wavefront tests/cuda/sgm-wavefront-prototype.cu && ./sgm-wavefront
 * -DNO_HAND=1 drops the hand-overs (wrong output) to time the rows alone. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include "sd-cuda-sgm.cuh"

#ifndef NO_HAND
#define NO_HAND 0               /* 1: no hand-overs (wrong output): the rows alone */
#endif
#define LANES 16
#define DPL 8
#define NP 4
#define DP 128
#define VW (NP * LANES)         /* words per vector */

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf (stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString (e_)); exit (1); } } while (0)

struct Args
{
  const uint8_t *cost, *guide;
  const uint16_t *in;
  uint16_t *out;
  int W, H, p1, p2, adaptive;
  int S, kmax, nstrips, nslots, R;
  unsigned *ticket;
  int *progress;
  unsigned long long *ring;     /* [slot][R][3][RV]: (value, tag) pairs */
};
#define RV 72                   /* pairs a vector: 64 words, the minimum, padding */
#define RING 4                  /* rows of inputs read ahead */

__device__ __forceinline__ int
ld_acquire (const int *p)
{
  int v;
  asm volatile ("ld.acquire.gpu.global.s32 %0, [%1];":"=r" (v):"l" (p):"memory");
  return v;
}

__device__ __forceinline__ void
st_release (int *p, int v)
{
  asm volatile ("st.release.gpu.global.s32 [%0], %1;"::"l" (p), "r" (v):"memory");
}

__device__ __forceinline__ uint32_t
path_step (uint32_t (&P)[NP], uint32_t min_prev, const uint32_t (&c)[NP],
    uint32_t p1x2, uint32_t p2, int g)
{
  uint32_t rm[NP], rp[NP], km1[NP], kp1[NP], keep[NP];
#pragma unroll
  for (int p = 0; p < NP; p++) {
    keep[p] = SD_FULL_MASK;
    rm[p] = __shfl_sync (SD_FULL_MASK, P[p], (g + LANES - 1) & (LANES - 1), LANES);
    rp[p] = __shfl_sync (SD_FULL_MASK, P[p], (g + 1) & (LANES - 1), LANES);
  }
#pragma unroll
  for (int p = 0; p < NP; p++) {
    km1[p] = g == 0 ? __byte_perm (p > 0 ? rm[p - 1] : SD_SENT2, rm[p], 0x5432) : rm[p];
    kp1[p] = g == LANES - 1 ? __byte_perm (rp[p], p + 1 < NP ? rp[p + 1] : SD_SENT2, 0x5432) : rp[p];
  }
  const uint32_t lmin = sd_path_cells < DPL > (P, km1, kp1, min_prev, c, p1x2, p2, keep);
  return sd_group_min < LANES > (min (lmin & 0xffff, lmin >> 16), SD_FULL_MASK);
}

__device__ __forceinline__ int
y_lo (int k, int S)
{
  return max (0, -k * S - S + 1);
}

__device__ __forceinline__ int
y_hi (int k, int S, int W, int H)
{
  return min (H, W - k * S);
}

/* A pending read of a hand-over vector: (value, tag) pairs. */
struct Pend
{
  unsigned long long v[NP + 1];
};

/* Loads the compiler must repeat in a spin (a plain load may be hoisted
 * out of a loop it assumes to end). */
__device__ __forceinline__ ulonglong2
ld_relaxed_v2 (const unsigned long long *p)
{
  ulonglong2 v;
  asm volatile ("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];":"=l" (v.x), "=l" (v.y):"l" (p):"memory");
  return v;
}

__device__ __forceinline__ unsigned long long
ld_relaxed (const unsigned long long *p)
{
  unsigned long long v;
  asm volatile ("ld.relaxed.gpu.global.u64 %0, [%1];":"=l" (v):"l" (p):"memory");
  return v;
}

__device__ __forceinline__ void
pend_issue (Pend & h, const unsigned long long *q, int g)
{
  const ulonglong2 u = ld_relaxed_v2 (q + 4 * g);
  const ulonglong2 v = ld_relaxed_v2 (q + 4 * g + 2);
  h.v[0] = u.x;
  h.v[1] = u.y;
  h.v[2] = v.x;
  h.v[3] = v.y;
  h.v[4] = ld_relaxed (q + 64);
}

/* Waits until every pair carries tag, then hands the vector and minimum. */
__device__ __forceinline__ void
pend_take (Pend & h, const unsigned long long *q, int g, uint32_t tag,
    uint32_t (&P)[NP], uint32_t & m)
{
  for (;;) {
    bool ok = true;
#pragma unroll
    for (int p = 0; p <= NP; p++)
      ok &= (uint32_t) (h.v[p] >> 32) == tag;
    if (ok)
      break;
    pend_issue (h, q, g);
  }
#pragma unroll
  for (int p = 0; p < NP; p++)
    P[p] = (uint32_t) h.v[p];
  m = (uint32_t) h.v[NP];
}

__device__ __forceinline__ void
pend_put (unsigned long long *q, int g, uint32_t tag32, const uint32_t (&P)[NP], uint32_t m)
{
  const unsigned long long tag = (unsigned long long) tag32 << 32;
  __stcg ((ulonglong2 *) (q + 4 * g), make_ulonglong2 (tag | P[0], tag | P[1]));
  __stcg ((ulonglong2 *) (q + 4 * g + 2), make_ulonglong2 (tag | P[2], tag | P[3]));
  if (g == 0)
    __stcg (q + 64, tag | m);
}

/* A group per pixel of the strip, all three directions in its registers. */
template < int S > __global__ void __launch_bounds__ (S * LANES)
down3_kernel (const Args a)
{
  __shared__ uint4 rowL[2][2][S][LANES];        /* (0,1) and (-1,1), by row parity */
  __shared__ uint32_t rowMin[2][2][S];
  __shared__ uint32_t p2tab[256];
  __shared__ int sh_s;
  for (int t = threadIdx.x; t < 256; t += blockDim.x)
    p2tab[t] = a.adaptive ? max (a.p1, a.p2 * SD_P2_ADAPTIVE_STEP / (SD_P2_ADAPTIVE_STEP + t)) : a.p2;
  const int g = threadIdx.x & (LANES - 1);
  const int i = threadIdx.x / LANES;
  const int W = a.W, H = a.H, RM = a.R - 1;
  const uint32_t p1x2 = (uint32_t) a.p1 * 0x10001u;
  /* hand-over vectors: 0 = (0,1) of pixel 0, 1 = (-1,1) of pixel 0, 2 =
   * (-1,1) of pixel 1; consumed by pixels S-1, S-2 and S-1 */
  const int vc1 = i == S - 1 ? 0 : -1;
  const int vc2 = i == S - 1 ? 2 : i == S - 2 ? 1 : -1;
  const int vp1 = i == 0 ? 0 : -1;
  const int vp2 = i == 0 ? 1 : i == 1 ? 2 : -1;

  for (;;) {
    __syncthreads ();
    if (threadIdx.x == 0)
      sh_s = atomicAdd (a.ticket, 1);
    __syncthreads ();
    const int s = sh_s;
    if (s >= a.nstrips)
      return;
    const int k = a.kmax - s;
    const int y0 = y_lo (k, S), y1 = y_hi (k, S, W, H);
    const bool has_prod = s > 0;
    const bool has_cons = s + 1 < a.nstrips;
    const int prod_y1 = y_hi (k + 1, S, W, H);
    const int cons_y0 = y_lo (k - 1, S);
    unsigned long long *ring_out = a.ring + (size_t) (s % a.nslots) * a.R * 3 * RV;
    const unsigned long long *ring_in = a.ring + (size_t) ((s + a.nslots - 1) % a.nslots) * a.R * 3 * RV;
    const uint32_t tag_in = (uint32_t) (s - 1) * 65536u + 1, tag_out = (uint32_t) s * 65536u + 1;
    int known_cons = -1;
    const bool consumer = vc2 >= 0 && has_prod;
    const bool producer = vp2 >= 0 && has_cons;

    uint32_t P[3][NP] = { }, m[3] = { };
    Pend h1, h2;
    int h_row = -1;
    auto issue =[&](int yy) {
      const unsigned long long *q = ring_in + (size_t) (yy & RM) * 3 * RV;
      if (vc1 >= 0)
        pend_issue (h1, q + vc1 * RV, g);
      pend_issue (h2, q + vc2 * RV, g);
      h_row = yy;
    };
    if (consumer && y0 > 0 && y0 - 1 < prod_y1)
      issue (y0 - 1);

    struct In
    {
      uint2 cb;
      uint4 inv;
      uint32_t gv, gp[3];
    };
    auto load =[&](In & in, int y) {
      const int x = k * S + y + i;
      in.gv = in.gp[0] = in.gp[1] = in.gp[2] = 0;
      if (y < y1 && x >= 0 && x < W) {
        const size_t pix = (size_t) y * W + x;
        in.cb = *(const uint2 *) (a.cost + pix * DP + g * DPL);
        in.inv = *(const uint4 *) (a.in + pix * DP + g * DPL);
        in.gv = a.guide[pix];
        const uint8_t *up = a.guide + pix - W;
#pragma unroll
        for (int d = 0; d < 3; d++) {
          const int xp = x - 1 + d;
          in.gp[d] = y > 0 && xp >= 0 && xp < W ? up[d - 1] : in.gv;
        }
      }
    };
    auto body =[&](In & in, int y) {
      const int x = k * S + y + i;
      const bool inimg = x >= 0 && x < W;
      const int cur = y & 1;
      bool pred[3];
#pragma unroll
      for (int d = 0; d < 3; d++) {
        const int xp = x - 1 + d;
        pred[d] = y > 0 && xp >= 0 && xp < W;
      }
      /* (0,1) from pixel i+1, (-1,1) from pixel i+2 of the row before */
      if (i + 1 < S) {
        const uint4 v = rowL[cur ^ 1][0][i + 1][g];
        P[1][0] = v.x; P[1][1] = v.y; P[1][2] = v.z; P[1][3] = v.w;
        m[1] = rowMin[cur ^ 1][0][i + 1];
      } else if (pred[1] && !NO_HAND) {
        pend_take (h1, ring_in + ((size_t) (h_row & RM) * 3 + vc1) * RV, g, tag_in + h_row, P[1], m[1]);
      }
      if (i + 2 < S) {
        const uint4 v = rowL[cur ^ 1][1][i + 2][g];
        P[2][0] = v.x; P[2][1] = v.y; P[2][2] = v.z; P[2][3] = v.w;
        m[2] = rowMin[cur ^ 1][1][i + 2];
      } else if (pred[2] && !NO_HAND) {
        pend_take (h2, ring_in + ((size_t) (h_row & RM) * 3 + vc2) * RV, g, tag_in + h_row, P[2], m[2]);
      }
      uint32_t c[NP];
      c[0] = __byte_perm (in.cb.x, 0, 0x4140);
      c[1] = __byte_perm (in.cb.x, 0, 0x4342);
      c[2] = __byte_perm (in.cb.y, 0, 0x4140);
      c[3] = __byte_perm (in.cb.y, 0, 0x4342);
#pragma unroll
      for (int d = 0; d < 3; d++) {
        if (!pred[d]) {
#pragma unroll
          for (int p = 0; p < NP; p++)
            P[d][p] = 0;
          m[d] = 0;
        }
      }
      const uint32_t p2a = p2tab[abs ((int) in.gv - (int) in.gp[0])];
      const uint32_t p2b = p2tab[abs ((int) in.gv - (int) in.gp[1])];
      const uint32_t p2c = p2tab[abs ((int) in.gv - (int) in.gp[2])];
      m[0] = path_step (P[0], m[0], c, p1x2, p2a, g);
      m[1] = path_step (P[1], m[1], c, p1x2, p2b, g);
      m[2] = path_step (P[2], m[2], c, p1x2, p2c, g);
      rowL[cur][0][i][g] = make_uint4 (P[1][0], P[1][1], P[1][2], P[1][3]);
      rowL[cur][1][i][g] = make_uint4 (P[2][0], P[2][1], P[2][2], P[2][3]);
      if (g == 0) {
        rowMin[cur][0][i] = m[1];
        rowMin[cur][1][i] = m[2];
      }
      if (!NO_HAND && producer && inimg && y + 1 >= cons_y0) {
        while (max (known_cons, cons_y0 - 1) < y - a.R + 1)
          known_cons = *(volatile const int *) (a.progress + s + 1);
        unsigned long long *q = ring_out + (size_t) (y & RM) * 3 * RV;
        if (vp1 >= 0)
          pend_put (q + vp1 * RV, g, tag_out + y, P[1], m[1]);
        pend_put (q + vp2 * RV, g, tag_out + y, P[2], m[2]);
      }
      if (inimg) {
        uint4 o;
        o.x = sd_add16x2 (sd_add16x2 (in.inv.x, P[0][0]), sd_add16x2 (P[1][0], P[2][0]));
        o.y = sd_add16x2 (sd_add16x2 (in.inv.y, P[0][1]), sd_add16x2 (P[1][1], P[2][1]));
        o.z = sd_add16x2 (sd_add16x2 (in.inv.z, P[0][2]), sd_add16x2 (P[1][2], P[2][2]));
        o.w = sd_add16x2 (sd_add16x2 (in.inv.w, P[0][3]), sd_add16x2 (P[1][3], P[2][3]));
        *(uint4 *) (a.out + ((size_t) y * W + x) * DP + g * DPL) = o;
      }
      __syncthreads ();
      if (threadIdx.x == 0)
        *(volatile int *) (a.progress + s) = y;
      if (!NO_HAND && consumer && y < prod_y1 && y + 1 < y1)
        issue (y);
      load (in, y + RING);
    };
    In ring[RING];
#pragma unroll
    for (int r = 0; r < RING; r++)
      load (ring[r], y0 + r);
    for (int y = y0; y < y1; y += RING) {
#pragma unroll
      for (int r = 0; r < RING; r++)
        if (y + r < y1)
          body (ring[r], y + r);
    }
  }
}

/* The memory floor of the same traffic: cost and in read, out written. */
__global__ void
stream_kernel (const uint8_t * cost, const uint16_t * in, uint16_t * out, size_t n16)
{
  const size_t t = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n16 / 8)
    return;
  const uint2 cb = ((const uint2 *) cost)[t];
  uint4 v = ((const uint4 *) in)[t];
  v.x += cb.x;
  v.y += cb.y;
  ((uint4 *) out)[t] = v;
}

static int
slot_of (int k)
{
  return (k % LANES) * DPL + k / LANES;
}

static void
cpu_ref (const uint8_t * cost, const uint8_t * guide, const uint16_t * in,
    uint16_t * out, int W, int H, int p1, int p2, int adaptive)
{
  const int D = DP;
  std::vector < int >L ((size_t) W * H * D);
  for (size_t c = 0; c < (size_t) W * H * DP; c++)
    out[c] = in[c];
  for (int dir = 0; dir < 3; dir++) {
    const int dx = 1 - dir;
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        const int xp = x - dx;
        const bool pred = y > 0 && xp >= 0 && xp < W;
        const uint8_t *c = cost + ((size_t) y * W + x) * DP;
        int *l = &L[((size_t) y * W + x) * D];
        if (!pred) {
          for (int k = 0; k < D; k++)
            l[k] = c[slot_of (k)];
        } else {
          const int *lp = &L[((size_t) (y - 1) * W + xp) * D];
          int m = 1 << 30;
          for (int k = 0; k < D; k++)
            m = std::min (m, lp[k]);
          int pp2 = p2;
          if (adaptive) {
            const int st = abs ((int) guide[(size_t) y * W + x] - (int) guide[(size_t) (y - 1) * W + xp]);
            pp2 = std::max (p1, p2 * SD_P2_ADAPTIVE_STEP / (SD_P2_ADAPTIVE_STEP + st));
          }
          for (int k = 0; k < D; k++) {
            int t = std::min (lp[k], m + pp2);
            if (k > 0)
              t = std::min (t, lp[k - 1] + p1);
            if (k < D - 1)
              t = std::min (t, lp[k + 1] + p1);
            l[k] = c[slot_of (k)] + t - m;
          }
        }
        uint16_t *o = out + ((size_t) y * W + x) * DP;
        for (int k = 0; k < D; k++)
          o[slot_of (k)] += (uint16_t) l[k];
      }
  }
}

struct Setup
{
  int W, H, S, grid, R;
  Args a;
};

static int
strips (int W, int H, int S, int *kmax)
{
  *kmax = (W - 1) / S;
  int n = 0;
  for (int k = *kmax;; k--) {
    const int lo = std::max (0, -k * S - S + 1), hi = std::min (H, W - k * S);
    if (lo >= H)
      break;
    if (lo < hi)
      n++;
  }
  return n;
}

template < int S > static void
launch (const Args & a, int grid, cudaStream_t st)
{
  CK (cudaMemsetAsync (a.ticket, 0, sizeof (unsigned), st));
  CK (cudaMemsetAsync (a.progress, 0xff, sizeof (int) * a.nstrips, st));
  CK (cudaMemsetAsync (a.ring, 0, sizeof (unsigned long long) * a.nslots * a.R * 3 * RV, st));
  down3_kernel < S > <<< grid, S * LANES, 0, st >>> (a);
}

template < int S > static int
run (int W, int H, int reps, bool check, int adaptive)
{
  const size_t cells = (size_t) W * H * DP;
  std::vector < uint8_t > hcost (cells), hguide ((size_t) W * H);
  std::vector < uint16_t > hin (cells), hout (cells), href (cells);
  srand (1234);
  /* costs with some structure: a smooth disparity plus noise */
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const int d0 = (x / 7 + y / 5) % DP;
      for (int k = 0; k < DP; k++)
        hcost[((size_t) y * W + x) * DP + slot_of (k)] = (uint8_t) std::min (62, abs (k - d0) / 2 + rand () % 9);
      hguide[(size_t) y * W + x] = (uint8_t) ((x * 3 + y * 5 + rand () % 40) & 255);
    }
  for (size_t c = 0; c < cells; c++)
    hin[c] = (uint16_t) (rand () % 600);
  uint8_t *cost, *guide;
  uint16_t *in, *out;
  CK (cudaMalloc (&cost, cells));
  CK (cudaMalloc (&guide, (size_t) W * H));
  CK (cudaMalloc (&in, cells * 2));
  CK (cudaMalloc (&out, cells * 2));
  CK (cudaMemcpy (cost, hcost.data (), cells, cudaMemcpyHostToDevice));
  CK (cudaMemcpy (guide, hguide.data (), (size_t) W * H, cudaMemcpyHostToDevice));
  CK (cudaMemcpy (in, hin.data (), cells * 2, cudaMemcpyHostToDevice));
  CK (cudaMemset (out, 0, cells * 2));

  Args a;
  a.cost = cost;
  a.guide = guide;
  a.in = in;
  a.out = out;
  a.W = W;
  a.H = H;
  a.p1 = 40;
  a.p2 = 128;
  a.adaptive = adaptive;
  a.S = S;
  a.nstrips = strips (W, H, S, &a.kmax);
  int per_sm = 0, sms = 0;
  CK (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, down3_kernel < S >, S * LANES, 0));
  CK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0));
  const int grid = std::min (a.nstrips, per_sm * sms);
  a.nslots = grid + 1;
  a.R = 8;
  while (a.R < (H + grid - 1) / grid + 2)
    a.R *= 2;
  CK (cudaMalloc (&a.ticket, sizeof (unsigned)));
  CK (cudaMalloc (&a.progress, sizeof (int) * a.nstrips));
  CK (cudaMalloc (&a.ring, sizeof (unsigned long long) * a.nslots * a.R * 3 * RV));
  CK (cudaMemset (a.ring, 0, sizeof (unsigned long long) * a.nslots * a.R * 3 * RV));
  cudaStream_t st;
  CK (cudaStreamCreate (&st));
  launch < S > (a, grid, st);
  CK (cudaStreamSynchronize (st));
  CK (cudaGetLastError ());
  int bad = 0;
  if (check) {
    CK (cudaMemcpy (hout.data (), out, cells * 2, cudaMemcpyDeviceToHost));
    cpu_ref (hcost.data (), hguide.data (), hin.data (), href.data (), W, H, a.p1, a.p2, adaptive);
    for (size_t c = 0; c < cells; c++)
      if (hout[c] != href[c]) {
        if (bad < 5)
          printf ("  mismatch cell %zu (pixel %zu, %zu): %u vs %u\n", c, (c / DP) % W, (c / DP) / W, hout[c], href[c]);
        bad++;
      }
  }
  cudaEvent_t e0, e1;
  CK (cudaEventCreate (&e0));
  CK (cudaEventCreate (&e1));
  std::vector < float >t, ts;
  for (int r = 0; r < reps; r++) {
    CK (cudaEventRecord (e0, st));
    launch < S > (a, grid, st);
    CK (cudaEventRecord (e1, st));
    CK (cudaEventSynchronize (e1));
    float ms;
    CK (cudaEventElapsedTime (&ms, e0, e1));
    t.push_back (ms);
    CK (cudaEventRecord (e0, st));
    stream_kernel <<< (unsigned) ((cells / 8 + 255) / 256), 256, 0, st >>> (cost, in, out, cells);
    CK (cudaEventRecord (e1, st));
    CK (cudaEventSynchronize (e1));
    CK (cudaEventElapsedTime (&ms, e0, e1));
    ts.push_back (ms);
  }
  CK (cudaGetLastError ());
  std::sort (t.begin (), t.end ());
  std::sort (ts.begin (), ts.end ());
  printf ("down3 S=%d %dx%d adaptive=%d: strips %d grid %d (%d/SM) R %d: %s%s median %.3f ms (min %.3f), stream floor %.3f ms\n",
      S, W, H, adaptive, a.nstrips, grid, per_sm, a.R, check ? (bad ? "MISMATCH " : "exact ") : "",
      check ? "" : "", reps ? t[reps / 2] : 0.f, reps ? t[0] : 0.f, reps ? ts[reps / 2] : 0.f);
  if (bad)
    printf ("  %d cells differ\n", bad);
  cudaFree (cost);
  cudaFree (guide);
  cudaFree (in);
  cudaFree (out);
  cudaFree (a.ticket);
  cudaFree (a.progress);
  cudaFree (a.ring);
  cudaStreamDestroy (st);
  return bad;
}

int
main (int argc, char **argv)
{
  int bad = 0;
  /* correctness on small and odd sizes, then times */
  bad += run < 8 > (97, 61, 3, true, 1);
  if (argc > 1)
    return bad != 0;
  bad += run < 16 > (640, 480, 20, true, 1);
  bad += run < 16 > (640, 480, 20, false, 1);
  bad += run < 8 > (1920, 1080, 20, false, 1);
  bad += run < 16 > (1920, 1080, 20, false, 1);
  bad += run < 32 > (1920, 1080, 20, false, 1);
  /* a narrow frame crossed by many strips: one hand-over a row */
  bad += run < 16 > (16, 2000, 10, false, 1);
  printf ("%s\n", bad ? "FAILED" : "all exact");
  return bad != 0;
}
