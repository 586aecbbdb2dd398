/* The CPU reference pipeline, one function per stage.
 *
 * These functions define what every backend computes: the CUDA backend is
 * tested against them bit for bit.  They favour the obvious over the fast.
 *
 * Conventions shared by all stages:
 * - images are tightly packed (stride = width);
 * - windows that reach outside the image read the nearest edge pixel, and
 *   so does a disparity that points left of the right image (x - d < 0
 *   matches right pixel 0);
 * - volumes are indexed [(y * width + x) * num_disparities + k], where
 *   disparity index k stands for disparity d = min_disparity + k;
 * - disparity maps hold 16 * d (4 fractional bits) in int16, or
 *   SD_DISP_INVALID. */
#ifndef SD_CPU_H
#define SD_CPU_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "../sd-brightness.h"
#include "../sd-params.h"

#define SD_DISP_INVALID ((int16_t) -1)
#define SD_SUBPIXEL_SCALE 16
/* Adaptive P2 is P2 * S / (S + |I(p) - I(p-r)|) for this S: half of P2 at
 * a luma step of S.  Hirschmueller's P2 / |step| (S = 0 in effect) falls
 * to P1 at almost every step of a textured outdoor scene and left a third
 * of a KITTI frame invalid; S = 8 was the best of 2, 4, 8 (docs/algorithms.md). */
#define SD_P2_ADAPTIVE_STEP 8
/* Intensity steps between two 8-bit luma values, 0 to 255: the size of a
 * table of the adaptive P2 per step (the fast CPU sweeps, the CUDA
 * kernels), filled by sd_cpu_penalty2. */
#define SD_GUIDE_STEPS 256

static inline int
sd_clamp_int (int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

/* prefilter.c */
void sd_cpu_median_filter (const uint8_t * src, uint8_t * dst, int width,
    int height, int window);
void sd_cpu_rank_filter (const uint8_t * src, uint8_t * dst, int width,
    int height, int window);
/* Row y of each (rows are independent: the fast backend runs them on
 * threads). */
void sd_cpu_median_filter_row (const uint8_t * src, uint8_t * dst,
    int width, int height, int window, int y);
void sd_cpu_rank_filter_row (const uint8_t * src, uint8_t * dst, int width,
    int height, int window, int y);
/* How a row filter covers an image: run(params, filter, ...) calls
 * filter(src, dst, width, height, window, y) once for each row y, in any
 * order (the fast backend spreads them over threads). */
typedef void (*SdRowFilter) (const uint8_t * src, uint8_t * dst, int width,
    int height, int window, int y);
typedef void (*SdRowRunner) (const SdParams * params, SdRowFilter filter,
    const uint8_t * src, uint8_t * dst, int width, int height, int window);
/* Applies params->prefilter with run (NULL: rows in order); tmp holds
 * width * height bytes. */
void sd_cpu_prefilter (const SdParams * params, SdRowRunner run,
    const uint8_t * src, uint8_t * dst, uint8_t * tmp, int width,
    int height);

/* brightness.c */
/* The map of right's levels that makes its histogram follow left's
 * (sd-brightness.h); both are width x height luma. */
void sd_cpu_brightness_map (const uint8_t * left, const uint8_t * right,
    int width, int height, uint8_t map[SD_BRIGHTNESS_LEVELS]);
/* Each of img's n pixels through map. */
void sd_cpu_apply_brightness_map (const uint8_t map[SD_BRIGHTNESS_LEVELS],
    uint8_t * img, size_t n);

/* cost.c */
/* The largest matching cost params can produce. */
int sd_cost_max (const SdParams * params);
void sd_cpu_census (const uint8_t * img, uint64_t * signature, int width,
    int height, SdCensusWindow window);
/* Fills the cost volume from the prefiltered images and their census
 * signatures census_left and census_right (width * height each; unused
 * for AD). */
void sd_cpu_cost_volume (const SdParams * params, const uint8_t * left,
    const uint8_t * right, const uint64_t * census_left,
    const uint64_t * census_right, uint8_t * cost, int width, int height);

/* sgm.c */
/* P2 for the step from the previous pixel on the path to this one: with
 * the adaptive option it falls as the intensity step grows, halving at a
 * step of SD_P2_ADAPTIVE_STEP, but never drops below P1. */
int sd_cpu_penalty2 (const SdParams * params, int intensity_step);
/* Aggregates cost along params->paths directions into sum.  guide is the
 * left luma image (for the adaptive P2).  scratch holds
 * 2 * width * num_disparities uint16 values. */
void sd_cpu_sgm (const SdParams * params, const uint8_t * cost,
    const uint8_t * guide, uint16_t * sum, uint16_t * scratch, int width,
    int height);

/* refine.c */
/* Winner takes all with the uniqueness test and (optionally) subpixel
 * refinement: disp gets 16 * d or SD_DISP_INVALID, and margin (when not
 * NULL) each pixel's margin (sd-confidence.h). */
void sd_cpu_wta (const SdParams * params, const uint16_t * sum,
    int16_t * disp, uint8_t * margin, int width, int height);
/* One pixel of sd_cpu_wta: its value from its sums s whose first smallest
 * is s[best] (the uniqueness test, then subpixel refinement), and its
 * margin into *margin when margin is not NULL. */
int16_t sd_cpu_wta_value (const SdParams * params, const uint16_t * s,
    int best, uint8_t * margin);
/* How many disparities right pixel xr can take: those whose left pixel
 * xr + min_disparity + k lies inside the image (0 means none).  Both
 * right-view read-outs use it; the candidate of index k sits at volume
 * element ((y * width + xr + min_disparity) * D) + k * (D + 1). */
int sd_right_candidates (const SdParams * params, int width, int xr);
/* Integer disparity of every right-image pixel from the same aggregated
 * costs (right x matches left x + d); SD_DISP_INVALID where none. */
void sd_cpu_right_disparity (const SdParams * params, const uint16_t * sum,
    int16_t * right_disp, int width, int height);
/* Invalidates left disparities whose right-view partner differs by more
 * than sd_params_lr_check() pixels. */
void sd_cpu_lr_check (const SdParams * params, int16_t * disp,
    const int16_t * right_disp, int width, int height);
/* The confidence plane (sd-confidence.h) into conf (rows conf_stride
 * apart): checked holds the disparities after the left-right check, final
 * the same after the median (before hole filling), margin the read-out's
 * margins. */
void sd_cpu_confidence (const SdParams * params, const int16_t * checked,
    const int16_t * final, const int16_t * right_disp,
    const uint8_t * margin, uint8_t * conf, size_t conf_stride, int width,
    int height);
/* 3x3 median over the valid values around each valid pixel (lower median
 * for an even count); invalid pixels stay invalid. */
void sd_cpu_median_disparity (const int16_t * src, int16_t * dst, int width,
    int height);
/* The image-guided weighted median of src into dst (sd-guided-median.h),
 * guide the left luma of the same size; holes stay as they are. */
void sd_cpu_guided_median (const int16_t * src, const uint8_t * guide,
    int16_t * dst, int width, int height);
/* Makes every speckle of disp (sd-speckle.h) invalid, and its confidence
 * 0 when conf (rows conf_stride apart) is not NULL: a pixel fill-holes then
 * fills was not matched.  seen holds width * height bytes, queue as many
 * int32_t. */
void sd_cpu_remove_speckles (int16_t * disp, uint8_t * conf,
    size_t conf_stride, int width, int height, uint8_t * seen,
    int32_t * queue);
/* Fills each row's leading run of holes as sd_fill_row_start() says
 * (sd-edge-fill.h; values within [lo, hi]: sd_output_disparity_bounds()),
 * then each run of invalid pixels with the smaller (background) of the two
 * valid values that bound it, or the one bound that exists.  A disparity of
 * exactly 0 counts as a hole: the output cannot tell it from one, so
 * filling from it would leave holes in a map meant to have none. */
void sd_cpu_fill_holes (int16_t * disp, int width, int height, int lo,
    int hi);
/* bp.c: pieces shared by the belief propagation methods */
#define SD_GAUSSIAN_MAX_RADIUS 40       /* ceil (4 * the largest sigma) */
/* Fills the normalised taps kernel[0 .. radius] of a Gaussian of sigma > 0
 * and returns the radius, ceil(4 sigma). */
int sd_gaussian_kernel (float sigma, float kernel[SD_GAUSSIAN_MAX_RADIUS + 1]);
/* The image as float, smoothed with a Gaussian of sigma when sigma > 0
 * (radius ceil(4 sigma), edges clamped); tmp holds width * height floats. */
void sd_cpu_gaussian (const uint8_t * src, float *dst, float *tmp, int width,
    int height, float sigma);
/* data-weight * min(c, data-trunc) per pixel and disparity, where c is the
 * Hamming distance of the census signatures census_left and census_right
 * (cost census) or, when they are NULL (cost ad), |L - R| of the smoothed
 * images left and right; a match left of the right image reads its edge
 * pixel. */
void sd_cpu_bp_data_cost (const SdParams * params, const float *left,
    const float *right, const uint64_t * census_left,
    const uint64_t * census_right, float *cost, int width, int height);
/* One message: h = data + in_a + in_b + in_c (NULL ones left out, added in
 * that order), min-convolved with min(|dp - dq|, disc_trunc) in O(D) and
 * shifted to zero mean. */
void sd_bp_message (const float *data, const float *in_a, const float *in_b,
    const float *in_c, float *out, int num_disparities, float disc_trunc);
/* Disparities from beliefs: argmin (ties to the smaller), parabola
 * refinement in float when params->subpixel; margin (when not NULL) gets
 * each pixel's margin (sd-confidence.h). */
void sd_cpu_bp_disparity (const SdParams * params, const float *belief,
    int16_t * disp, uint8_t * margin, int width, int height);
/* The right view's integer disparity from the same beliefs, as
 * sd_cpu_right_disparity does for SGM sums. */
void sd_cpu_bp_right_disparity (const SdParams * params, const float *belief,
    int16_t * right_disp, int width, int height);

/* A grid of pixels with data costs and the four messages each pixel last
 * sent (stored at the sender: up[i] went to the pixel above i). */
typedef struct
{
  int width, height, num_disparities;
  float *data, *up, *down, *left, *right;
} SdBpGrid;

/* Incoming messages of a pixel, NULL where the neighbour is outside. */
enum
{ SD_BP_FROM_BELOW, SD_BP_FROM_ABOVE, SD_BP_FROM_RIGHT, SD_BP_FROM_LEFT };
void sd_bp_incoming (const SdBpGrid * grid, int x, int y, const float *in[4]);
/* Recomputes the (up to four) messages pixel (x, y) sends. */
void sd_bp_update_pixel (const SdBpGrid * grid, int x, int y,
    float disc_trunc);
/* belief = data + the incoming messages (below, above, right, left). */
void sd_bp_beliefs (const SdBpGrid * grid, float *belief);

/* hbp.c */
size_t sd_cpu_hbp_workspace_bytes (const SdParams * params, int width,
    int height);
/* Beliefs of every pixel and disparity from the level-0 data costs. */
void sd_cpu_hbp (const SdParams * params, const float *data, float *belief,
    void *workspace, int width, int height);

/* tiledbp.c */
/* Tiled BP's fixed point: units per 1.0 of cost.  A power of two, so that
 * beliefs convert back exactly; small enough that the largest belief the
 * parameters allow (data-weight x data-trunc + 4 x disc-trunc) fits an
 * int32 with room. */
#define SD_TILED_BP_ONE 1024
/* cost in SD_TILED_BP_ONE units, rounded to nearest (even): rintf, which
 * GCC inlines where lrintf, which may set errno, stays a call (a tenth of
 * a tile's visit) */
static inline int32_t
sd_tiled_bp_fixed (float cost)
{
  return (int32_t) rintf (cost * SD_TILED_BP_ONE);
}
/* The message of data plus three incoming messages (all D fixed-point
 * values): min-convolution with |dp - dq|, normalised to a smallest entry
 * of 0, capped at disc_trunc. */
void sd_tiled_bp_message (const int32_t * data, const int32_t * in_a,
    const int32_t * in_b, const int32_t * in_c, int32_t * out,
    int num_disparities, int32_t disc_trunc);
/* n costs in fixed point, sd_tiled_bp_fixed each */
void sd_tiled_bp_to_fixed (const float *cost, int32_t * fixed, int n);
/* What a tiled BP visit computes with: these two, or a fast build's
 * versions of them, to the bit. */
typedef struct
{
  void (*message) (const int32_t * data, const int32_t * in_a,
      const int32_t * in_b, const int32_t * in_c, int32_t * out,
      int num_disparities, int32_t disc_trunc);
  void (*to_fixed) (const float *cost, int32_t * fixed, int n);
} SdTiledBpArithmetic;
extern const SdTiledBpArithmetic sd_tiled_bp_reference_arithmetic;
/* tiles of tile pixels that cover size pixels */
int sd_tiled_bp_tiles (int size, int tile);
/* The workspace: the messages that cross tile edges (zeroed before the
 * first visit), then one visit's grid (a tile with a halo, its own state
 * while it runs); sd_cpu_tiled_bp_workspace_bytes is the sum. */
size_t sd_cpu_tiled_bp_edges_bytes (const SdParams * params, int width,
    int height);
size_t sd_cpu_tiled_bp_grid_bytes (const SdParams * params);
size_t sd_cpu_tiled_bp_workspace_bytes (const SdParams * params, int width,
    int height);
/* Beliefs of every pixel and disparity from the data costs: tiles of
 * params->tile_size visited in raster, then reverse raster order,
 * params->outer_iterations times. */
void sd_cpu_tiled_bp (const SdParams * params, const float *data,
    float *belief, void *workspace, int width, int height);
/* One visit of tile (tx, ty): reads the boundary messages its neighbours
 * left in the workspace (zero in a zeroed workspace), runs
 * params->inner_iterations BP-M sweeps over its pixels and writes its own
 * boundary messages back; writes its pixels' beliefs when belief is not
 * NULL.  sd_cpu_tiled_bp is a sequence of these. */
void sd_cpu_tiled_bp_visit (const SdParams * params, const float *data,
    float *belief, void *workspace, int width, int height, int tx, int ty);
/* The same with the edges' messages and the visit's grid apart (visits
 * that run at once, the tiles of one anti-diagonal, share the edges and
 * each has a grid of its own), computed with arithmetic. */
void sd_cpu_tiled_bp_visit_in (const SdParams * params,
    const SdTiledBpArithmetic * arithmetic, const float *data, float *belief,
    void *edges, void *grid, int width, int height, int tx, int ty);

/* Writes the output contract (sd-output.h): 16 * d or depth in
 * millimetres as params->output says, 0 for invalid. */
void sd_cpu_to_output (const SdParams * params, const int16_t * disp,
    uint16_t * out, size_t out_stride, int width, int height);

#endif
