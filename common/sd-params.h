/* SdParams: every tunable of the stereo pipeline, its default and its range.
 *
 * The field names are the element's property names with '-' turned into '_'.
 * sd_params_validate() is the one place that knows the allowed ranges; the
 * element, sd-bench and the engine all go through it. */
#ifndef SD_PARAMS_H
#define SD_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  SD_ALGORITHM_SGM,
  SD_ALGORITHM_HBP,             /* hierarchical belief propagation */
  SD_ALGORITHM_TILED_BP,        /* tiled belief propagation (BP-M in tiles) */
} SdAlgorithm;

typedef enum
{
  SD_PREFILTER_NONE,
  SD_PREFILTER_MEDIAN3,
  SD_PREFILTER_MEDIAN5,
  SD_PREFILTER_RANK,
  SD_PREFILTER_MEDIAN_RANK,     /* median 3x3, then rank (Banz et al.) */
} SdPrefilter;

typedef enum
{
  SD_COST_CENSUS,
  SD_COST_AD,                   /* absolute difference of the prefiltered images */
  SD_COST_CENSUS_AD,            /* census plus truncated AD (sd-cost.h); BP: census */
} SdCost;

typedef enum
{
  SD_CENSUS_9X7,                /* full 9x7 window: 62 comparisons with the centre */
  SD_CENSUS_5X5,                /* full 5x5 window: 24 comparisons */
  SD_CENSUS_CS9X7,              /* centre-symmetric 9x7: 31 pair comparisons */
} SdCensusWindow;

typedef enum
{
  SD_BP_PRECISION_FLOAT,        /* messages stored as 32-bit float */
  SD_BP_PRECISION_HALF,         /* messages stored as 16-bit (GPU only) */
} SdBpPrecision;

typedef enum
{
  SD_FILL_HOLES_OFF,            /* invalid pixels stay 0 */
  SD_FILL_HOLES_ON,
  SD_FILL_HOLES_AUTO,           /* on for the dense methods (hbp, tiled-bp) */
} SdFillHoles;

typedef enum
{
  SD_P2_ADAPTIVE_OFF,
  SD_P2_ADAPTIVE_ON,
  SD_P2_ADAPTIVE_AUTO,          /* on where the holes are filled */
} SdP2Adaptive;

typedef enum
{
  SD_OUTPUT_DISPARITY,          /* round(16 * d), 0 = invalid */
  SD_OUTPUT_DEPTH,              /* millimetres, 0 = invalid, 65535 = that or farther */
} SdOutput;

#define SD_MAX_DISPARITIES 256
#define SD_MAX_MIN_DISPARITY 1024
#define SD_MAX_P2 4095
#define SD_LR_CHECK_OFF (-1)
#define SD_LR_CHECK_AUTO (-2)
#define SD_MAX_BP_LEVELS 8
#define SD_MAX_BP_ITERATIONS 100
#define SD_MIN_TILE_SIZE 4
#define SD_MAX_THREADS 1024
#define SD_MAX_TILE_SIZE 256
#define SD_MAX_BAND_ROWS 65535
#define SD_MAX_DEVICE_MEMORY_MB (1 << 20)

typedef struct
{
  SdAlgorithm algorithm;
  int num_disparities;          /* 1 .. 256, or 0: sd_params_disparities */
  int min_disparity;            /* 0 .. 1024 */
  SdPrefilter prefilter;
  int rank_window;              /* odd, 5 .. 15 */
  bool match_brightness;        /* sd-brightness.h */
  bool align_rows;              /* sd-row-align.h: measured by the engine */
  SdCost cost;
  SdCensusWindow census_window;
  int paths;                    /* 4 or 8 */
  int p1;                       /* 0 .. p2 */
  int p2;                       /* 1 .. 4095 */
  SdP2Adaptive p2_adaptive;
  int uniqueness;               /* percent, 0 (off) .. 99 */
  bool subpixel;
  int lr_check;                 /* max |dL - dR| in pixels, 0 .. 255, -1 (off)
                                 * or -2 (auto: sd_params_lr_check) */
  bool median;
  SdFillHoles fill_holes;
  bool guided_median;           /* sd-guided-median.h */

  /* what the output holds; depth = focal_length * baseline / d */
  SdOutput output;
  float focal_length;           /* pixels, 0 (unset) .. 1e6 */
  float baseline;               /* millimetres, 0 (unset) .. 1e7 */

  /* belief propagation (algorithm hbp) */
  int levels;                   /* pyramid levels, 1 .. 8, or 0: from the image size */
  int iterations;               /* per level, 1 .. 100 */
  float data_weight;            /* > 0 .. 100 */
  float data_trunc;             /* > 0 .. 1000, intensity levels */
  float disc_trunc;             /* > 0 .. 1000, or 0: num_disparities / 7.5, at most 9 */
  float sigma;                  /* Gaussian smoothing of the images, 0 (off) .. 10 */
  SdBpPrecision bp_precision;

  /* tiled belief propagation (algorithm tiled-bp); the data and smoothness
   * terms are hbp's */
  int tile_size;                /* square tiles, 4 .. 256 pixels */
  int outer_iterations;         /* raster + reverse-raster passes, 1 .. 100 */
  int inner_iterations;         /* BP-M sweeps per tile visit, 1 .. 100 */

  /* cpu backend */
  int threads;                  /* 0 .. SD_MAX_THREADS, 0 = sd_host_threads */
  /* horizontal bands (sd-band.h): output rows a band, 0 .. SD_MAX_BAND_ROWS;
   * 0 = the whole frame, or on the cuda backend bands as tall as its
   * memory allows when the whole frame does not fit */
  int band_rows;
  /* cuda backend: MB of device memory a pipeline may hold, 0 .. 1048576;
   * 0 = what the device has free */
  int max_device_memory;

  /* Also compute the per-pixel confidence (sd-confidence.h).  Not a
   * property: the element sets it while its src_confidence pad exists. */
  bool confidence;
} SdParams;

/* The defaults every front end starts from. */
void sd_params_init (SdParams * params);

/* Returns true when every field is in range.  Otherwise writes one sentence
 * naming the bad value and the allowed range into msg and returns false. */
bool sd_params_validate (const SdParams * params, char *msg, size_t msg_size);
/* The same, plus what must hold once every parameter is set, whatever the
 * order they were set in (output=depth needs focal_length and baseline):
 * the engine runs with these. */
bool sd_params_validate_for_run (const SdParams * params, char *msg,
    size_t msg_size);

/* Name <-> value tables for the enumerations, shared by the command-line
 * tools and the element's GEnum registration.  Each table ends with
 * {NULL, 0}. */
typedef struct
{
  const char *nick;
  int value;
  const char *description;
} SdEnumEntry;

extern const SdEnumEntry sd_algorithm_entries[];
extern const SdEnumEntry sd_prefilter_entries[];
extern const SdEnumEntry sd_cost_entries[];
extern const SdEnumEntry sd_output_entries[];
extern const SdEnumEntry sd_census_window_entries[];
extern const SdEnumEntry sd_bp_precision_entries[];
extern const SdEnumEntry sd_fill_holes_entries[];
extern const SdEnumEntry sd_p2_adaptive_entries[];

/* The disparities searched in an image width pixels wide: num_disparities,
 * or when that is 0 (automatic) an eighth of the width rounded up to a
 * multiple of 16, from 16 to SD_MAX_DISPARITIES, and under tiled-bp at
 * most SD_TILED_BP_AUTO_DISPARITIES.  An eighth of the width reaches
 * objects about 4 to 7 baselines away with a lens of 90 to 60 degrees
 * across; on every shared set it scored as well as each set's own range,
 * where a fixed 64 lost a third of Teddy and Cones at half size
 * (docs/algorithms.md, "The disparity range"). */
#define SD_AUTO_DISPARITIES_WIDTH_SHARE 8
#define SD_AUTO_DISPARITIES_STEP 16
/* the most disparities the GPU's tiled-bp kernels hold a tile's messages
 * for in registers (cuda/sd-cuda-tiledbp.h): the automatic range stops
 * there so that tiled-bp runs on either backend with it */
#define SD_TILED_BP_AUTO_DISPARITIES 64
int sd_params_disparities (const SdParams * params, int width);
/* The pyramid depth hbp uses for an image: params->levels, or when that is
 * 0 one that keeps the coarsest level about 16 to 32 pixels on its short
 * side (5 levels for the Middlebury sizes), in 1 .. SD_MAX_BP_LEVELS. */
int sd_params_bp_levels (const SdParams * params, int width, int height);
/* disc_trunc, or when it is 0 num_disparities / 7.5, at most
 * SD_BP_AUTO_DISC_TRUNC_MAX: the smoothness truncation grows with the
 * range up to 67 disparities and no further, which lowered hbp's bad>1 on
 * every shared set with more (docs/algorithms.md, hbp). */
#define SD_BP_AUTO_DISC_TRUNC_MAX 9.0f
float sd_params_bp_disc_trunc (const SdParams * params);
/* Whether the invalid pixels are filled: fill_holes, where auto means yes
 * for belief propagation and no for SGM. */
bool sd_params_fill_holes (const SdParams * params);
/* Whether SGM lowers P2 across intensity edges: p2_adaptive, where auto
 * means where the holes are filled (sd_params_fill_holes).  Adaptive P2
 * makes the dense map better on every shared set, but leaves a fifth of a
 * tree-lined driving scene invalid when holes stay holes
 * (docs/algorithms.md, "Adaptive P2 where holes are filled"). */
bool sd_params_p2_adaptive (const SdParams * params);
/* The left-right tolerance in pixels, or SD_LR_CHECK_OFF: lr_check, where
 * auto means 1 where the holes are filled (sd_params_fill_holes) and 3
 * where they stay.  Where they stay, a tight check costs density (18.8 %
 * of a driving scene invalid at 1, 14.6 % at 3); where they are filled,
 * the pixels it rejects were mostly wrong, and the filled map is better
 * for it (docs/algorithms.md, "The left edge continues its surface"). */
#define SD_LR_CHECK_FILLED 1
#define SD_LR_CHECK_KEPT 3
int sd_params_lr_check (const SdParams * params);
/* Whether params' matching cost reads census signatures (census and
 * census-ad). */
bool sd_params_uses_census (const SdParams * params);
/* Whether it blends census with the absolute difference: census-ad, except
 * under tiled-bp, which takes its census part (docs/algorithms.md). */
bool sd_params_blends_ad (const SdParams * params);
/* Whether the right view's brightness is mapped onto the left's
 * (sd-brightness.h): match-brightness, where the cost reads absolute
 * differences of images that are brightness, not ranks. */
bool sd_params_matches_brightness (const SdParams * params);

/* Looks nick up in entries; returns false when it is not there. */
bool sd_enum_from_nick (const SdEnumEntry * entries, const char *nick,
    int *value);
/* The nick of value, or "?" when value is not in entries. */
const char *sd_enum_to_nick (const SdEnumEntry * entries, int value);

/* One tunable: the table sd_param_descs[] lists them all, and the element's
 * properties, sd-bench's options and the range checks all come from it. */
typedef enum
{
  SD_PARAM_INT,
  SD_PARAM_FLOAT,
  SD_PARAM_BOOL,
  SD_PARAM_ENUM,
} SdParamKind;

typedef struct
{
  const char *name;             /* property and option name */
  const char *blurb;            /* what it does, in one line */
  SdParamKind kind;
  size_t offset;                /* of the field in SdParams */
  double min, max;              /* INT and FLOAT: the allowed range */
  bool above_min;               /* FLOAT: min itself is not allowed */
  const char *note;             /* said with a refused value, or NULL */
  const SdEnumEntry *entries;   /* ENUM: the choices */
} SdParamDesc;

extern const SdParamDesc sd_param_descs[];
extern const size_t sd_param_count;

/* The description of the parameter called name, or NULL. */
const SdParamDesc *sd_param_find (const char *name);

/* Sets one parameter from its property name and a textual value, as a
 * command line gives it ("num-disparities", "64").  Returns false with a
 * sentence in msg for an unknown name or a value that does not parse; range
 * checks stay with sd_params_validate(). */
bool sd_params_set_from_string (SdParams * params, const char *name,
    const char *value, char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif

#endif
