/* Tiled BP (common/cpu/tiledbp.c) fast: the reference's visits, with the
 * message in vectors over the disparities, and the tiles of each
 * anti-diagonal at once over threads.
 *
 * Threads: a tile's left and upper neighbours lie on the diagonal before
 * and its right and lower ones on the diagonal after, and no two tiles of
 * one diagonal are neighbours, so every visit reads the edge messages it
 * reads in raster order (the reference's argument, checked by
 * test-tiledbp); each thread runs its visits in a tile grid of its own.
 *
 * The message: the reference's two min-convolution scans run over the
 * disparities in order, one dependent step each.  What they compute is
 * conv[k] = min over j of h[j] + |k - j| ONE (h the sum of the data and
 * the three incoming messages), then capped at lowest + disc_trunc, lowest
 * the smallest h.  A j with |k - j| ONE >= disc_trunc gives at least
 * lowest + disc_trunc, so it never changes the capped entry: only the
 * `reach` nearest entries on each side count (the automatic disc-trunc,
 * num-disparities / 7.5 and at most 9, keeps it at 8 or less), and terms
 * further out change nothing either.  So each side is a scan in the manner
 * of Hillis and Steele over whole vectors, in steps of 1, 2, 4, ...
 * entries until they cover the reach: a step shifts the entries by s
 * within the registers (or by whole vectors) and keeps the smaller of each
 * entry and the shifted one plus s ONE.  Every operation is an exact
 * integer one, so the entries are the reference's bit for bit. */
#include "sd-fast.h"

#include <string.h>

#include "fast-vector.h"

/* int32 lanes: as wide as the build's registers */
#define ILANES FLANES

/* Above any sum of a data cost and three messages (sd-cpu.h keeps those
 * far below 2^27) even with SD_MAX_DISPARITIES ONE added, and far from
 * overflow: the entries outside the range, never a minimum. */
#define ABOVE_ALL (1 << 29)

/* the vectors of a message's widest range */
#define MAX_VECTORS (SD_MAX_DISPARITIES / ILANES + 1)

/* The first n lanes of p (n < ILANES), the rest 0: a pixel's last
 * disparities, without reading past them. */
static inline vi
load32_part (const int32_t * p, int n)
{
  vi v = { };
  memcpy (&v, p, sizeof (int32_t) * n);
  return v;
}

static inline vi
lane_numbers (void)
{
  vi lane;
  for (int i = 0; i < ILANES; i++)
    lane[i] = i;
  return lane;
}

/* Every lane the smallest of v's: a tree of lane swaps, which stays in
 * the registers (a sweep's messages wait on it). */
static inline vi
smallest_in_every_lane (vi v)
{
  for (int s = ILANES / 2; s > 0; s /= 2)
    v = vmin32 (v, __builtin_shuffle (v, lane_numbers () ^ s));
  return v;
}

/* One step of both scans over the n vectors of f (towards higher
 * disparities) and of b (towards lower ones), by s < ILANES entries; s is
 * a constant wherever this is inlined, so the shifts are ones the
 * instruction set has (an align or a two-register permute). */
static inline __attribute__((always_inline)) void
scan_step_in_lanes (vi * f, vi * b, int n, int s)
{
  const vi above = (vi) { } + ABOVE_ALL, add = (vi) { } + s * SD_TILED_BP_ONE;
  const vi from_lower = lane_numbers () + (ILANES - s);
  const vi from_higher = lane_numbers () + s;
  /* from the top down, so that f[i - 1] is still the step's input */
  for (int i = n - 1; i >= 0; i--)
    f[i] = vmin32 (f[i], __builtin_shuffle (i > 0 ? f[i - 1] : above, f[i],
            from_lower) + add);
  for (int i = 0; i < n; i++)
    b[i] = vmin32 (b[i], __builtin_shuffle (b[i], i + 1 < n ? b[i + 1] :
            above, from_higher) + add);
}

/* The same by q whole vectors. */
static inline void
scan_step_by_vectors (vi * f, vi * b, int n, int q)
{
  const vi above = (vi) { } + ABOVE_ALL;
  const vi add = (vi) { } + q * ILANES * SD_TILED_BP_ONE;
  for (int i = n - 1; i >= 0; i--)
    f[i] = vmin32 (f[i], (i >= q ? f[i - q] : above) + add);
  for (int i = 0; i < n; i++)
    b[i] = vmin32 (b[i], (i + q < n ? b[i + q] : above) + add);
}

/* A step of s entries, s a power of two and a constant. */
static inline __attribute__((always_inline)) void
scan_step (vi * f, vi * b, int n, int s)
{
  if (s < ILANES)
    scan_step_in_lanes (f, b, n, s);
  else
    scan_step_by_vectors (f, b, n, s / ILANES);
}

/* The message of n vectors' disparities. */
static inline __attribute__((always_inline)) void
message_of (const int32_t * data, const int32_t * in_a,
    const int32_t * in_b, const int32_t * in_c, int32_t * out, int D,
    int32_t disc_trunc, int n)
{
  const int reach = sd_clamp_int ((disc_trunc - 1) / SD_TILED_BP_ONE, 0,
      D - 1);
  vi f[MAX_VECTORS], b[MAX_VECTORS];
  vi lowest = (vi) { } + ABOVE_ALL;
  for (int i = 0; i < n; i++) {
    const int k = i * ILANES, left = D - k;
    vi v;
    if (left >= ILANES)
      v = load32 (data + k) + load32 (in_a + k) + load32 (in_b + k) +
          load32 (in_c + k);
    else {
      v = load32_part (data + k, left) + load32_part (in_a + k, left) +
          load32_part (in_b + k, left) + load32_part (in_c + k, left);
      const vi inside = (vi) (lane_numbers () < left);
      v = (v & inside) | (ABOVE_ALL & ~inside);
    }
    lowest = vmin32 (lowest, v);
    f[i] = b[i] = v;
  }
  /* steps of 1, 2, 4 and 8 entries, then (16 >= ILANES) whole vectors */
  if (reach >= 1)
    scan_step (f, b, n, 1);
  if (reach >= 2)
    scan_step (f, b, n, 2);
  if (reach >= 4)
    scan_step (f, b, n, 4);
  if (reach >= 8)
    scan_step (f, b, n, 8);
  for (int s = 16; s <= reach; s *= 2)
    scan_step_by_vectors (f, b, n, s / ILANES);

  const vi low = smallest_in_every_lane (lowest);
  const vi cap = (vi) { } + disc_trunc;
  for (int i = 0; i < n; i++) {
    const int k = i * ILANES;
    const vi res = vmin32 (vmin32 (f[i], b[i]) - low, cap);
    if (D - k >= ILANES)
      store32 (out + k, res);
    else
      memcpy (out + k, &res, sizeof (int32_t) * (D - k));
  }
}

static void
message (const int32_t * data, const int32_t * in_a, const int32_t * in_b,
    const int32_t * in_c, int32_t * out, int D, int32_t disc_trunc)
{
  /* one, two, four and eight vectors (16 to 64 disparities, the ranges
   * tiled BP runs on the GPU, with AVX2 or AVX-512, and 128) by code of
   * their own, their loops gone and the vectors in registers */
  const int n = (D + ILANES - 1) / ILANES;
  if (n == 1)
    message_of (data, in_a, in_b, in_c, out, D, disc_trunc, 1);
  else if (n == 2)
    message_of (data, in_a, in_b, in_c, out, D, disc_trunc, 2);
  else if (n == 4)
    message_of (data, in_a, in_b, in_c, out, D, disc_trunc, 4);
  else if (n == 8)
    message_of (data, in_a, in_b, in_c, out, D, disc_trunc, 8);
  else
    message_of (data, in_a, in_b, in_c, out, D, disc_trunc, n);
}

/* Lanes of costs in fixed point, rounded to nearest even as rintf is in
 * the default rounding mode (sd_tiled_bp_fixed): the instruction that
 * converts in the current mode where there is one. */
static inline vi
fixed_lanes (vf cost)
{
  const vf scaled = cost * SD_TILED_BP_ONE;
#if defined(__AVX512F__) && FLANES == 16
  return (vi) _mm512_cvtps_epi32 ((__m512) scaled);
#elif defined(__AVX__) && FLANES == 8
  return (vi) _mm256_cvtps_epi32 ((__m256) scaled);
#elif defined(__SSE2__)
  return (vi) _mm_cvtps_epi32 ((__m128) scaled);
#elif defined(__aarch64__)
  /* always to nearest even: rintf in the default mode */
  return vcvtnq_s32_f32 (scaled);
#else
  vi v;
  for (int i = 0; i < FLANES; i++)
    v[i] = (int32_t) rintf (scaled[i]);
  return v;
#endif
}

static void
to_fixed (const float *cost, int32_t * fixed, int n)
{
  int i = 0;
  for (; i + FLANES <= n; i += FLANES)
    store32 (fixed + i, fixed_lanes (loadf (cost + i)));
  sd_tiled_bp_to_fixed (cost + i, fixed + i, n - i);
}

const SdTiledBpArithmetic SD_FAST (sd_fast_tiled_bp_arithmetic) = {
  message, to_fixed
};

size_t
SD_FAST (sd_fast_tiled_bp_workspace_bytes) (const SdParams * p, int width,
    int height)
{
  return sd_cpu_tiled_bp_edges_bytes (p, width, height)
      + (size_t) sd_fast_threads (p) * sd_cpu_tiled_bp_grid_bytes (p);
}

void
SD_FAST (sd_fast_tiled_bp) (const SdParams * p, const float *data,
    float *belief, void *workspace, int width, int height)
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
            sd_cpu_tiled_bp_visit_in (p, &SD_FAST (sd_fast_tiled_bp_arithmetic),
                data, out, workspace, grid, width, height, tx, d - tx);
        }
      }
    }
  }
}
