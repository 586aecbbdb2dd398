#include "sd-params.h"
#include "sd-message.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const SdEnumEntry sd_algorithm_entries[] = {
  {"sgm", SD_ALGORITHM_SGM, "Semi-Global Matching"},
  {"hbp", SD_ALGORITHM_HBP, "Hierarchical belief propagation"},
  {"tiled-bp", SD_ALGORITHM_TILED_BP, "Tiled belief propagation"},
  {NULL, 0, NULL}
};

const SdEnumEntry sd_prefilter_entries[] = {
  {"none", SD_PREFILTER_NONE, "No prefilter"},
  {"median3", SD_PREFILTER_MEDIAN3, "Median 3x3"},
  {"median5", SD_PREFILTER_MEDIAN5, "Median 5x5"},
  {"rank", SD_PREFILTER_RANK, "Rank transform"},
  {"median-rank", SD_PREFILTER_MEDIAN_RANK,
      "Median 3x3 followed by the rank transform"},
  {NULL, 0, NULL}
};

const SdEnumEntry sd_cost_entries[] = {
  {"census", SD_COST_CENSUS, "Hamming distance of census signatures"},
  {"ad", SD_COST_AD, "Absolute difference of the prefiltered images"},
  {"census-ad", SD_COST_CENSUS_AD, "Three parts census Hamming distance, "
        "one part absolute difference (truncated at 16, scaled to the "
        "census range); tiled-bp uses its census part"},
  {NULL, 0, NULL}
};

const SdEnumEntry sd_census_window_entries[] = {
  {"9x7", SD_CENSUS_9X7, "Full 9x7 window"},
  {"5x5", SD_CENSUS_5X5, "Full 5x5 window"},
  {"cs9x7", SD_CENSUS_CS9X7, "Centre-symmetric 9x7 window"},
  {NULL, 0, NULL}
};

const SdEnumEntry sd_bp_precision_entries[] = {
  {"float", SD_BP_PRECISION_FLOAT, "32-bit float messages"},
  {"half", SD_BP_PRECISION_HALF,
      "16-bit float messages (CUDA; the CPU computes in float)"},
  {NULL, 0, NULL}
};

/* Belief propagation is chosen for a dense map, so by default its pixels
 * that fail the left-right check are filled; SGM's stay invalid, which
 * is the honest answer for occlusions. */
const SdEnumEntry sd_output_entries[] = {
  {"disparity", SD_OUTPUT_DISPARITY, "round(16 * d), d the disparity in "
        "pixels; 0 = invalid"},
  {"depth", SD_OUTPUT_DEPTH, "depth in millimetres, focal-length * baseline "
        "/ d; 0 = invalid, 65535 = 65535 mm or farther"},
  {NULL, 0, NULL}
};

const SdEnumEntry sd_fill_holes_entries[] = {
  {"off", SD_FILL_HOLES_OFF, "Invalid pixels stay invalid (0)"},
  {"on", SD_FILL_HOLES_ON, "Invalid pixels take the lower of their nearest "
        "valid neighbours in the row"},
  {"auto", SD_FILL_HOLES_AUTO, "on for hbp and tiled-bp, off for sgm"},
  {NULL, 0, NULL}
};

const SdEnumEntry sd_p2_adaptive_entries[] = {
  {"off", SD_P2_ADAPTIVE_OFF, "P2 everywhere"},
  {"on", SD_P2_ADAPTIVE_ON, "P2 * 8 / (8 + intensity step), at least P1"},
  {"auto", SD_P2_ADAPTIVE_AUTO, "on where fill-holes fills the holes, off "
        "where they stay"},
  {NULL, 0, NULL}
};

#define INT(n, b, f, lo, hi, nt) {n, b, SD_PARAM_INT, offsetof (SdParams, f), \
      lo, hi, false, nt, NULL}
#define FLOAT(n, b, f, lo, hi, above, nt) {n, b, SD_PARAM_FLOAT, \
      offsetof (SdParams, f), lo, hi, above, nt, NULL}
#define BOOL(n, b, f) {n, b, SD_PARAM_BOOL, offsetof (SdParams, f), 0, 1, \
      false, NULL, NULL}
#define ENUM(n, b, f, e) {n, b, SD_PARAM_ENUM, offsetof (SdParams, f), 0, 0, \
      false, NULL, e}

const SdParamDesc sd_param_descs[] = {
  ENUM ("algorithm", "Stereo matching algorithm", algorithm,
      sd_algorithm_entries),
  INT ("num-disparities", "Number of disparities searched, from "
      "min-disparity up (pixels); 0: an eighth of the image width",
      num_disparities, 0, SD_MAX_DISPARITIES, NULL),
  INT ("min-disparity", "Smallest disparity searched (pixels)",
      min_disparity, 0, SD_MAX_MIN_DISPARITY, NULL),
  ENUM ("prefilter", "Filter applied to both images before matching",
      prefilter, sd_prefilter_entries),
  INT ("rank-window", "Window of the rank prefilter (odd, 5 to 15)",
      rank_window, 5, 15, "it must be odd"),
  BOOL ("match-brightness", "Map the right image's brightness onto the "
      "left's (histogram matching) before comparing them: cameras whose "
      "exposure, gain or response differ", match_brightness),
  BOOL ("align-rows", "Measure on the first pair how far the right "
      "image's rows sit above or below the left's, how far it is turned "
      "and scaled, and move them back: rigs whose calibration is a little "
      "off", align_rows),
  ENUM ("cost", "Matching cost", cost, sd_cost_entries),
  ENUM ("census-window", "Window of the census transform", census_window,
      sd_census_window_entries),
  INT ("paths", "Number of SGM aggregation paths (4 or 8)", paths, 4, 8,
      "it must be 4 or 8"),
  INT ("p1", "SGM penalty for a disparity change of one pixel (at most p2; "
      "set p2 first when raising both)", p1, 0, SD_MAX_P2,
      "it must not exceed p2"),
  INT ("p2", "SGM penalty for a larger disparity change (at least p1)", p2,
      1, SD_MAX_P2, NULL),
  ENUM ("p2-adaptive", "Lower p2 across intensity edges", p2_adaptive,
      sd_p2_adaptive_entries),
  INT ("uniqueness", "Percent by which the best cost must beat the second "
      "best (0 = off)", uniqueness, 0, 99, "percent"),
  BOOL ("subpixel", "Refine disparities to 1/16 pixel", subpixel),
  INT ("lr-check", "Largest left-right disparity difference kept, in pixels "
      "(-1 = no check, -2 = auto: 1 where fill-holes fills the holes, 3 "
      "where they stay)", lr_check, SD_LR_CHECK_AUTO, 255,
      "-1 turns the check off, -2 is auto"),
  BOOL ("median", "3x3 median filter on the disparity", median),
  ENUM ("fill-holes", "Fill invalid pixels and small isolated segments "
      "from their neighbours",
      fill_holes, sd_fill_holes_entries),
  BOOL ("guided-median", "Weighted median of the disparity, weighted by "
      "likeness in the left image: disparity edges follow image edges",
      guided_median),
  ENUM ("output", "What the GRAY16 output holds: disparity or depth",
      output, sd_output_entries),
  FLOAT ("focal-length", "output=depth: focal length of the rectified "
      "images, in pixels (0 = unset)", focal_length, 0, 1e6, false,
      "0 means unset"),
  FLOAT ("baseline", "output=depth: distance between the two cameras' "
      "centres, in millimetres (0 = unset)", baseline, 0, 1e7, false,
      "0 means unset"),
  INT ("levels", "hbp: pyramid levels (0 = from the image size)", levels, 0,
      SD_MAX_BP_LEVELS, "0 picks from the image size"),
  INT ("iterations", "hbp: message passing iterations per level",
      iterations, 1, SD_MAX_BP_ITERATIONS, NULL),
  FLOAT ("data-weight", "hbp, tiled-bp: weight of the data cost (above 0)",
      data_weight, 0, 100, true, NULL),
  FLOAT ("data-trunc", "hbp, tiled-bp: truncation of the data cost, in "
      "differing census bits or intensity levels (above 0)", data_trunc, 0,
      1000, true, NULL),
  FLOAT ("disc-trunc", "hbp, tiled-bp: truncation of the smoothness cost "
      "(0 = num-disparities / 7.5, at most 9)", disc_trunc, 0, 1000, false,
      "0 means num-disparities / 7.5, at most 9"),
  FLOAT ("sigma", "hbp, tiled-bp: Gaussian smoothing of the images for "
      "the ad cost (0 = off)", sigma, 0, 10, false, NULL),
  ENUM ("bp-precision", "hbp: how messages are stored (tiled-bp computes "
      "in fixed point)", bp_precision, sd_bp_precision_entries),
  INT ("tile-size", "tiled-bp: side of the square tiles (pixels)", tile_size,
      SD_MIN_TILE_SIZE, SD_MAX_TILE_SIZE, NULL),
  INT ("outer-iterations", "tiled-bp: raster and reverse-raster passes",
      outer_iterations, 1, SD_MAX_BP_ITERATIONS, NULL),
  INT ("inner-iterations", "tiled-bp: BP-M sweeps per tile visit",
      inner_iterations, 1, SD_MAX_BP_ITERATIONS, NULL),
  INT ("threads", "cpu backend: threads it computes with (0 = one per "
      "core the process may use, at most a container's CPU limit)", threads,
      0, SD_MAX_THREADS, "0 means one per core"),
  INT ("band-rows", "Output rows of each horizontal band a frame is "
      "processed in (sgm: the whole frame's output, only the volumes are "
      "cut; 0 = the whole frame, or bands when it does not fit the "
      "memory)", band_rows, 0,
      SD_MAX_BAND_ROWS, "0 means the whole frame"),
  INT ("max-device-memory", "Megabytes of memory the backend's buffers "
      "may hold (cuda: GPU memory; cpu: host memory); "
      "frames that need more are processed in bands (0 = what is free)",
      max_device_memory, 0, SD_MAX_DEVICE_MEMORY_MB,
      "0 means what the device has free"),
};

const size_t sd_param_count = sizeof (sd_param_descs) /
    sizeof (sd_param_descs[0]);

/* SdParams keeps its enums as C enums, read and written here as int */
_Static_assert (sizeof (SdAlgorithm) == sizeof (int), "enum size");

void
sd_params_init (SdParams * p)
{
  memset (p, 0, sizeof (*p));
  p->algorithm = SD_ALGORITHM_SGM;
  /* automatic: a fixed 64 missed everything nearer than 64 pixels of
   * disparity, a third of the scene on the larger shared sets */
  p->num_disparities = 0;
  p->min_disparity = 0;
  p->prefilter = SD_PREFILTER_NONE;
  p->rank_window = 7;
  /* off: where the views agree, the map turns what they see differently
   * into brightness errors (docs/algorithms.md, "Brightness matching") */
  p->match_brightness = false;
  /* on: the offset is left alone below SD_ROW_ALIGN_MIN_OFFSET, where
   * every shared set measures, and a row's offset halves the map's worth
   * (docs/algorithms.md, "Rows that do not line up") */
  p->align_rows = true;
  p->cost = SD_COST_CENSUS_AD;
  p->census_window = SD_CENSUS_9X7;
  p->paths = 8;
  /* SGM: chosen on every shared set at once by tests/sweep-defaults.py
   * (docs/algorithms.md, "Defaults"): strong penalties for census costs,
   * and only the left-right check invalidates */
  p->p1 = 40;
  p->p2 = 128;
  p->p2_adaptive = SD_P2_ADAPTIVE_AUTO;
  p->uniqueness = 0;
  p->subpixel = true;
  p->lr_check = SD_LR_CHECK_AUTO;
  p->median = true;
  p->fill_holes = SD_FILL_HOLES_AUTO;
  p->guided_median = true;
  p->output = SD_OUTPUT_DISPARITY;
  p->focal_length = 0.0f;
  p->baseline = 0.0f;
  /* belief propagation: Grauer-Gray et al.'s setup, which the sweep over
   * every shared set also picked for census data costs */
  p->levels = 0;
  p->iterations = 7;
  p->data_weight = 0.1f;
  p->data_trunc = 15.0f;
  p->disc_trunc = 0.0f;
  p->sigma = 0.0f;
  p->bp_precision = SD_BP_PRECISION_FLOAT;
  /* tiled BP: the cheapest setting measured to keep Tsukuba's label
   * mismatches (the MEMOCODE 2013 measure) under the thesis's 15716 and
   * the synthetic scenes within 1 px; docs/algorithms.md has the sweep */
  p->tile_size = 10;
  p->outer_iterations = 4;
  p->inner_iterations = 2;
  p->band_rows = 0;
  p->max_device_memory = 0;
  p->confidence = false;
}

int
sd_params_disparities (const SdParams * p, int width)
{
  if (p->num_disparities > 0)
    return p->num_disparities;
  /* ceil (ceil (width / 8) / 16) * 16, without overflow near INT_MAX */
  const int unit = SD_AUTO_DISPARITIES_WIDTH_SHARE * SD_AUTO_DISPARITIES_STEP;
  int d = SD_AUTO_DISPARITIES_STEP * (width / unit + (width % unit != 0));
  const int most = p->algorithm == SD_ALGORITHM_TILED_BP ?
      SD_TILED_BP_AUTO_DISPARITIES : SD_MAX_DISPARITIES;
  if (d < SD_AUTO_DISPARITIES_STEP)
    d = SD_AUTO_DISPARITIES_STEP;
  return d < most ? d : most;
}

int
sd_params_bp_levels (const SdParams * p, int width, int height)
{
  if (p->levels > 0)
    return p->levels;
  int levels = 1;
  for (int side = width < height ? width : height; side >= 32 &&
      levels < SD_MAX_BP_LEVELS; side = (side + 1) / 2)
    levels++;
  return levels;
}

float
sd_params_bp_disc_trunc (const SdParams * p)
{
  if (p->disc_trunc > 0)
    return p->disc_trunc;
  const float scaled = p->num_disparities / 7.5f;
  return scaled < SD_BP_AUTO_DISC_TRUNC_MAX ? scaled :
      SD_BP_AUTO_DISC_TRUNC_MAX;
}

bool
sd_params_fill_holes (const SdParams * p)
{
  return p->fill_holes == SD_FILL_HOLES_AUTO ? p->algorithm !=
      SD_ALGORITHM_SGM : p->fill_holes == SD_FILL_HOLES_ON;
}

bool
sd_params_p2_adaptive (const SdParams * p)
{
  return p->p2_adaptive == SD_P2_ADAPTIVE_AUTO ? sd_params_fill_holes (p) :
      p->p2_adaptive == SD_P2_ADAPTIVE_ON;
}

int
sd_params_lr_check (const SdParams * p)
{
  if (p->lr_check != SD_LR_CHECK_AUTO)
    return p->lr_check;
  return sd_params_fill_holes (p) ? SD_LR_CHECK_FILLED : SD_LR_CHECK_KEPT;
}

static bool
enum_valid (const SdEnumEntry * entries, int value)
{
  for (const SdEnumEntry * e = entries; e->nick; e++)
    if (e->value == value)
      return true;
  return false;
}

/* The range check of one parameter. */
static bool
desc_validate (const SdParamDesc * d, const SdParams * p, char *msg,
    size_t size)
{
  const char *base = (const char *) p;
  const char *note = d->note ? d->note : "";
  const char *open = d->note ? " (" : "", *close = d->note ? ")" : "";
  switch (d->kind) {
    case SD_PARAM_INT:{
      const int v = *(const int *) (base + d->offset);
      if (v < d->min || v > d->max)
        return sd_message (msg, size, "%s %d is out of range %g..%g%s%s%s",
            d->name, v, d->min, d->max, open, note, close);
      return true;
    }
    case SD_PARAM_FLOAT:{
      const float v = *(const float *) (base + d->offset);
      /* written so that NaN fails too */
      if (!((d->above_min ? v > d->min : v >= d->min) && v <= d->max))
        return sd_message (msg, size, "%s %g is out of range %s%g, %g]%s%s%s",
            d->name, v, d->above_min ? "(" : "[", d->min, d->max, open, note,
            close);
      return true;
    }
    case SD_PARAM_ENUM:{
      const int v = *(const int *) (base + d->offset);
      if (!enum_valid (d->entries, v))
        return sd_message (msg, size, "%s %d is not one of its choices",
            d->name, v);
      return true;
    }
    case SD_PARAM_BOOL:
      return true;
  }
  return true;
}

bool
sd_params_validate (const SdParams * p, char *msg, size_t size)
{
  for (size_t i = 0; i < sd_param_count; i++)
    if (!desc_validate (&sd_param_descs[i], p, msg, size))
      return false;
  /* the rules a range cannot say */
  if (p->rank_window % 2 == 0)
    return sd_message (msg, size,
        "rank-window %d is not allowed: it must be odd, in 5..15",
        p->rank_window);
  if (p->paths != 4 && p->paths != 8)
    return sd_message (msg, size, "paths %d is not allowed: it must be 4 or 8",
        p->paths);
  if (p->p1 > p->p2)
    return sd_message (msg, size, "p1 %d is out of range 0..p2 (p2 is %d)",
        p->p1, p->p2);
  return true;
}

bool
sd_params_uses_census (const SdParams * p)
{
  return p->cost != SD_COST_AD;
}

bool
sd_params_blends_ad (const SdParams * p)
{
  return p->cost == SD_COST_CENSUS_AD
      && p->algorithm != SD_ALGORITHM_TILED_BP;
}

bool
sd_params_matches_brightness (const SdParams * p)
{
  /* the census and the rank prefilters read only the order of brightness,
   * which the map keeps */
  return p->match_brightness && (p->cost == SD_COST_AD
      || sd_params_blends_ad (p)) && p->prefilter != SD_PREFILTER_RANK
      && p->prefilter != SD_PREFILTER_MEDIAN_RANK;
}

bool
sd_params_validate_for_run (const SdParams * p, char *msg, size_t size)
{
  if (!sd_params_validate (p, msg, size))
    return false;
  if (p->output == SD_OUTPUT_DEPTH && (p->focal_length <= 0
          || p->baseline <= 0))
    return sd_message (msg, size,
        "output=depth needs focal-length and baseline "
        "(they are %g px and %g mm)", p->focal_length, p->baseline);
  return true;
}

bool
sd_enum_from_nick (const SdEnumEntry * entries, const char *nick, int *value)
{
  for (const SdEnumEntry * e = entries; e->nick; e++) {
    if (strcmp (e->nick, nick) == 0) {
      *value = e->value;
      return true;
    }
  }
  return false;
}

const char *
sd_enum_to_nick (const SdEnumEntry * entries, int value)
{
  for (const SdEnumEntry * e = entries; e->nick; e++)
    if (e->value == value)
      return e->nick;
  return "?";
}

static bool
parse_int (const char *text, int *out)
{
  char *end;
  errno = 0;
  long v = strtol (text, &end, 10);
  if (errno || end == text || *end != '\0' || v < -1000000 || v > 1000000)
    return false;
  *out = (int) v;
  return true;
}

static bool
parse_float (const char *text, float *out)
{
  char *end;
  errno = 0;
  float v = strtof (text, &end);
  if (errno || end == text || *end != '\0')
    return false;
  *out = v;
  return true;
}

static bool
parse_bool (const char *text, bool *out)
{
  if (!strcmp (text, "true") || !strcmp (text, "1") || !strcmp (text, "on")) {
    *out = true;
    return true;
  }
  if (!strcmp (text, "false") || !strcmp (text, "0") || !strcmp (text, "off")) {
    *out = false;
    return true;
  }
  return false;
}

const SdParamDesc *
sd_param_find (const char *name)
{
  for (size_t i = 0; i < sd_param_count; i++)
    if (strcmp (sd_param_descs[i].name, name) == 0)
      return &sd_param_descs[i];
  return NULL;
}

bool
sd_params_set_from_string (SdParams * p, const char *name, const char *value,
    char *msg, size_t size)
{
  const SdParamDesc *d = sd_param_find (name);
  if (!d)
    return sd_message (msg, size, "unknown parameter '%s'", name);
  char *field = (char *) p + d->offset;
  switch (d->kind) {
    case SD_PARAM_INT:
      if (!parse_int (value, (int *) field))
        return sd_message (msg, size, "%s: '%s' is not an integer", name,
            value);
      return true;
    case SD_PARAM_FLOAT:
      if (!parse_float (value, (float *) field))
        return sd_message (msg, size, "%s: '%s' is not a number", name, value);
      return true;
    case SD_PARAM_BOOL:
      if (!parse_bool (value, (bool *) field))
        return sd_message (msg, size, "%s: '%s' is not true or false", name,
            value);
      return true;
    case SD_PARAM_ENUM:{
      int v;
      if (!sd_enum_from_nick (d->entries, value, &v)) {
        char choices[256] = "";
        for (const SdEnumEntry * e = d->entries; e->nick; e++) {
          strncat (choices, e->nick, sizeof (choices) - strlen (choices) - 1);
          if (e[1].nick)
            strncat (choices, ", ", sizeof (choices) - strlen (choices) - 1);
        }
        return sd_message (msg, size, "%s: '%s' is not one of %s", name, value,
            choices);
      }
      *(int *) field = v;
      return true;
    }
  }
  return false;
}
