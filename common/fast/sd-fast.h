/* The fast CPU stages: the reference's arithmetic (common/cpu/), bit for
 * bit, spread over threads (OpenMP) and vectorized over disparities with
 * GCC/clang vector extensions (and an intrinsic where GCC misses one).  The
 * cpu backend runs these; the reference backend runs only the reference
 * (test-cpu-agreement holds them together).
 *
 * The same sources are built once per instruction set (portable, and on
 * x86-64 also SSE4.1, AVX2 and AVX-512; on ARM the portable build is the
 * NEON one): each build defines SD_FAST_ISA and fills one SdCpuStages
 * table; sd_fast_pick_stages() picks the best the processor runs, or the one
 * SD_CPU_ISA names (the tests use it to run each). */
#ifndef SD_FAST_H
#define SD_FAST_H

#include "../cpu/sd-cpu.h"
#include "../sd-host-cpus.h"
#include "../sd-temporal.h"

#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* The threads a fast stage uses: params->threads, 0 (or no params)
 * meaning one per core the process may use (sd_host_threads). */
static inline int
sd_fast_threads (const SdParams * params)
{
#ifdef _OPENMP
  return params && params->threads > 0 ? params->threads :
      sd_host_threads ();
#else
  (void) params;
  return 1;
#endif
}

/* Extra bytes the cost volume needs after its end: the aggregation reads
 * whole vectors of costs. */
#define SD_FAST_COST_PADDING 32

/* The cost volume of frame rows [y0, y0 + rows), in a buffer of the
 * caller's that holds them and SD_FAST_COST_PADDING more bytes. */
typedef const uint8_t *(*SdCostRows) (void *user, int y0, int rows);

/* Columns [first, first + n) of a row of `width` elements of `size` bytes
 * into dst, columns left of the row filled with the byte left_fill and
 * right of it with right_fill: the windowed stages read a padded copy of
 * their rows, so that no pixel near the edge needs a path of its own. */
static inline void
sd_fast_copy_segment (void *dst, const void *row, int width, int first,
    int n, size_t size, int left_fill, int right_fill)
{
  const int before = sd_clamp_int (-first, 0, n);
  const int inside = sd_clamp_int (width - first - before, 0, n - before);
  uint8_t *d = dst;
  memset (d, left_fill, before * size);
  memcpy (d + before * size, (const uint8_t *) row + (first + before) * size,
      inside * size);
  memset (d + (before + inside) * size, right_fill,
      (n - before - inside) * size);
}

/* The CPU stages that have fast versions: the reference's or one
 * instruction set's. */
typedef struct
{
  const char *isa;              /* "reference", "portable", "avx2", ... */
  /* bytes of workspace sgm needs for a frame in bands of band_rows (0:
   * whole) */
  size_t (*workspace_bytes) (const SdParams * p, int width, int height,
      int band_rows);
  /* sd_cpu_census with the window of p */
  void (*census) (const SdParams * p, const uint8_t * img,
      uint64_t * signature, int width, int height);
  /* sd_cpu_cost_volume */
  void (*cost_volume) (const SdParams * p, const uint8_t * left,
      const uint8_t * right, const uint64_t * census_left,
      const uint64_t * census_right, uint8_t * cost, int width, int height);
  /* costs aggregated and read out: left disparities and margins
   * (sd_cpu_wta; margin may be NULL) and, when the left-right check is on,
   * right ones (sd_cpu_right_disparity), the whole frame's whatever
   * band_rows says; the costs come from cost_rows, band by band where the
   * stage bands (the fast ones; the reference takes the whole frame's) */
  void (*sgm) (const SdParams * p, SdCostRows cost_rows, void *cost_user,
      const uint8_t * guide, int16_t * disp, uint8_t * margin,
      int16_t * right_disp, void *workspace, int width, int height,
      int band_rows);
  /* sd_cpu_median_disparity */
  void (*median_disparity) (const SdParams * p, const int16_t * src,
      int16_t * dst, int width, int height);
  /* sd_cpu_hbp and its workspace */
  size_t (*hbp_workspace_bytes) (const SdParams * p, int width, int height);
  void (*hbp) (const SdParams * p, const float *data, float *belief,
      void *workspace, int width, int height);
  /* sd_cpu_tiled_bp, its workspace, and the arithmetic of its visits */
  size_t (*tiled_bp_workspace_bytes) (const SdParams * p, int width,
      int height);
  void (*tiled_bp) (const SdParams * p, const float *data, float *belief,
      void *workspace, int width, int height);
  const SdTiledBpArithmetic *tiled_bp_arithmetic;
  /* sd_cpu_guided_median */
  void (*guided_median) (const SdParams * p, const int16_t * src,
      const uint8_t * guide, int16_t * dst, int width, int height);
  /* sd_temporal_row (the depthtemporal element's filter) */
  void (*temporal_row) (const SdTemporalParams * p, uint16_t * row,
      uint16_t * value, uint8_t * held, int width);
  /* sd_rectify_component_rows */
  void (*rectify_rows) (const int32_t * map, const uint8_t * src,
      int src_stride, uint8_t * dst, int dst_stride, int pixel_stride,
      int width, int height, int y0, int y1);
  /* sd_rectify_component16_rows */
  void (*rectify16_rows) (const int32_t * map, const uint16_t * src,
      int src_stride, uint16_t * dst, int dst_stride, int pixel_stride,
      int depth, int shift, int width, int height, int y0, int y1);
} SdCpuStages;

/* The fast stages this processor runs best (see above). */
const SdCpuStages *sd_fast_pick_stages (void);

/* fast-refine.c (one build for every processor): an SdRowRunner over
 * threads (for sd_cpu_prefilter), sd_cpu_lr_check,
 * sd_cpu_bp_data_cost and sd_cpu_bp_disparity with (when the left-right
 * check is on) sd_cpu_bp_right_disparity, the same values over threads. */
void sd_fast_rows (const SdParams * params, SdRowFilter filter,
    const uint8_t * src, uint8_t * dst, int width, int height, int window);
void sd_fast_lr_check (const SdParams * params, int16_t * disp,
    const int16_t * right_disp, int width, int height);
/* sd_rectify_component, rows over the threads of params (NULL: OpenMP's
 * count), in the best build's vectors. */
void sd_fast_rectify_component (const SdParams * params,
    const int32_t * map, const uint8_t * src, int src_stride, uint8_t * dst,
    int dst_stride, int pixel_stride, int width, int height);
/* The same for sd_rectify_component16. */
void sd_fast_rectify_component16 (const SdParams * params,
    const int32_t * map, const uint16_t * src, int src_stride,
    uint16_t * dst, int dst_stride, int pixel_stride, int depth, int shift,
    int width, int height);
void sd_fast_bp_data_cost (const SdParams * params, const float *left,
    const float *right, const uint64_t * census_left,
    const uint64_t * census_right, float *cost, int width, int height);
void sd_fast_bp_disparities (const SdParams * params, const float *belief,
    int16_t * disp, uint8_t * margin, int16_t * right_disp, int width,
    int height);

/* Within one instruction set's build: the names carry its suffix. */
#ifdef SD_FAST_ISA
#define SD_FAST_JOIN2(a, b) a##_##b
#define SD_FAST_JOIN(a, b) SD_FAST_JOIN2 (a, b)
#define SD_FAST(name) SD_FAST_JOIN (name, SD_FAST_ISA)

/* sd_cpu_census and sd_cpu_cost_volume, threaded, with a fast census for
 * the pixels whose window lies inside the image. */
void SD_FAST (sd_fast_census) (const SdParams * params, const uint8_t * img,
    uint64_t * signature, int width, int height);
void SD_FAST (sd_fast_cost_volume) (const SdParams * params,
    const uint8_t * left, const uint8_t * right,
    const uint64_t * census_left, const uint64_t * census_right,
    uint8_t * cost, int width, int height);
size_t SD_FAST (sd_fast_sgm_workspace_bytes) (const SdParams * params,
    int width, int height, int band_rows);
/* sd_cpu_sgm, sd_cpu_wta and sd_cpu_right_disparity: the same values, in
 * bands too. */
void SD_FAST (sd_fast_sgm) (const SdParams * params, SdCostRows cost_rows,
    void *cost_user, const uint8_t * guide, int16_t * disp, uint8_t * margin,
    int16_t * right_disp, void *workspace, int width, int height,
    int band_rows);
void SD_FAST (sd_fast_median_disparity) (const SdParams * params,
    const int16_t * src, int16_t * dst, int width, int height);
/* sd_cpu_guided_median: the same values. */
void SD_FAST (sd_fast_guided_median) (const SdParams * params,
    const int16_t * src, const uint8_t * guide, int16_t * dst, int width,
    int height);
void SD_FAST (sd_fast_temporal_row) (const SdTemporalParams * p,
    uint16_t * row, uint16_t * value, uint8_t * held, int width);
void SD_FAST (sd_fast_rectify_rows) (const int32_t * map,
    const uint8_t * src, int src_stride, uint8_t * dst, int dst_stride,
    int pixel_stride, int width, int height, int y0, int y1);
void SD_FAST (sd_fast_rectify16_rows) (const int32_t * map,
    const uint16_t * src, int src_stride, uint16_t * dst, int dst_stride,
    int pixel_stride, int depth, int shift, int width, int height, int y0,
    int y1);
size_t SD_FAST (sd_fast_hbp_workspace_bytes) (const SdParams * params,
    int width, int height);
void SD_FAST (sd_fast_hbp) (const SdParams * params, const float *data,
    float *belief, void *workspace, int width, int height);
/* sd_cpu_tiled_bp over threads, a wavefront of tiles, with
 * sd_tiled_bp_message and sd_tiled_bp_to_fixed in vectors: the same
 * beliefs. */
size_t SD_FAST (sd_fast_tiled_bp_workspace_bytes) (const SdParams * params,
    int width, int height);
void SD_FAST (sd_fast_tiled_bp) (const SdParams * params, const float *data,
    float *belief, void *workspace, int width, int height);
extern const SdTiledBpArithmetic SD_FAST (sd_fast_tiled_bp_arithmetic);
#endif

#endif
