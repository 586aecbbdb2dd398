#include "sd-params.h"

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

void
sd_params_init (SdParams * p)
{
  memset (p, 0, sizeof (*p));
  p->algorithm = SD_ALGORITHM_SGM;
  p->num_disparities = 64;
  p->min_disparity = 0;
  p->prefilter = SD_PREFILTER_NONE;
  p->rank_window = 7;
  p->cost = SD_COST_CENSUS;
  p->census_window = SD_CENSUS_9X7;
  p->paths = 8;
  p->p1 = 24;
  p->p2 = 48;
  p->p2_adaptive = false;
  p->uniqueness = 25;
  p->subpixel = true;
  p->lr_check = 1;
  p->median = true;
  p->fill_holes = false;
  /* belief propagation: the setup of Grauer-Gray et al.'s 2019 tests */
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
  return p->disc_trunc > 0 ? p->disc_trunc : p->num_disparities / 7.5f;
}

static bool
fail (char *msg, size_t size, const char *fmt, ...)
{
  if (msg && size) {
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (msg, size, fmt, ap);
    va_end (ap);
  }
  return false;
}

static bool
enum_valid (const SdEnumEntry * entries, int value)
{
  for (const SdEnumEntry * e = entries; e->nick; e++)
    if (e->value == value)
      return true;
  return false;
}

bool
sd_params_validate (const SdParams * p, char *msg, size_t size)
{
  if (!enum_valid (sd_algorithm_entries, p->algorithm))
    return fail (msg, size, "algorithm %d is not a known algorithm",
        (int) p->algorithm);
  if (p->num_disparities < 1 || p->num_disparities > SD_MAX_DISPARITIES)
    return fail (msg, size, "num-disparities %d is out of range 1..%d",
        p->num_disparities, SD_MAX_DISPARITIES);
  if (p->min_disparity < 0 || p->min_disparity > SD_MAX_MIN_DISPARITY)
    return fail (msg, size, "min-disparity %d is out of range 0..%d",
        p->min_disparity, SD_MAX_MIN_DISPARITY);
  if (!enum_valid (sd_prefilter_entries, p->prefilter))
    return fail (msg, size, "prefilter %d is not a known prefilter",
        (int) p->prefilter);
  if (p->rank_window < 5 || p->rank_window > 15 || p->rank_window % 2 == 0)
    return fail (msg, size,
        "rank-window %d is not allowed: it must be odd, in 5..15",
        p->rank_window);
  if (!enum_valid (sd_cost_entries, p->cost))
    return fail (msg, size, "cost %d is not a known matching cost",
        (int) p->cost);
  if (!enum_valid (sd_census_window_entries, p->census_window))
    return fail (msg, size, "census-window %d is not a known window",
        (int) p->census_window);
  if (p->paths != 4 && p->paths != 8)
    return fail (msg, size, "paths %d is not allowed: it must be 4 or 8",
        p->paths);
  if (p->p2 < 1 || p->p2 > SD_MAX_P2)
    return fail (msg, size, "p2 %d is out of range 1..%d", p->p2, SD_MAX_P2);
  if (p->p1 < 0 || p->p1 > p->p2)
    return fail (msg, size, "p1 %d is out of range 0..p2 (p2 is %d)", p->p1,
        p->p2);
  if (p->uniqueness < 0 || p->uniqueness > 99)
    return fail (msg, size, "uniqueness %d is out of range 0..99 (percent)",
        p->uniqueness);
  if (p->lr_check < SD_LR_CHECK_OFF || p->lr_check > 255)
    return fail (msg, size,
        "lr-check %d is out of range -1..255 (-1 turns the check off)",
        p->lr_check);
  if (p->levels < 0 || p->levels > SD_MAX_BP_LEVELS)
    return fail (msg, size, "levels %d is out of range 0..%d (0 picks from "
        "the image size)", p->levels, SD_MAX_BP_LEVELS);
  if (p->iterations < 1 || p->iterations > SD_MAX_BP_ITERATIONS)
    return fail (msg, size, "iterations %d is out of range 1..%d",
        p->iterations, SD_MAX_BP_ITERATIONS);
  if (!(p->data_weight > 0 && p->data_weight <= 100))
    return fail (msg, size, "data-weight %g is out of range (0, 100]",
        p->data_weight);
  if (!(p->data_trunc > 0 && p->data_trunc <= 1000))
    return fail (msg, size, "data-trunc %g is out of range (0, 1000]",
        p->data_trunc);
  if (!(p->disc_trunc >= 0 && p->disc_trunc <= 1000))
    return fail (msg, size, "disc-trunc %g is out of range 0..1000 (0 means "
        "num-disparities / 7.5)", p->disc_trunc);
  if (!(p->sigma >= 0 && p->sigma <= 10))
    return fail (msg, size, "sigma %g is out of range 0..10", p->sigma);
  if (p->tile_size < SD_MIN_TILE_SIZE || p->tile_size > SD_MAX_TILE_SIZE)
    return fail (msg, size, "tile-size %d is out of range %d..%d",
        p->tile_size, SD_MIN_TILE_SIZE, SD_MAX_TILE_SIZE);
  if (p->outer_iterations < 1 || p->outer_iterations > SD_MAX_BP_ITERATIONS)
    return fail (msg, size, "outer-iterations %d is out of range 1..%d",
        p->outer_iterations, SD_MAX_BP_ITERATIONS);
  if (p->inner_iterations < 1 || p->inner_iterations > SD_MAX_BP_ITERATIONS)
    return fail (msg, size, "inner-iterations %d is out of range 1..%d",
        p->inner_iterations, SD_MAX_BP_ITERATIONS);
  if (!enum_valid (sd_bp_precision_entries, p->bp_precision))
    return fail (msg, size, "bp-precision %d is not a known precision",
        (int) p->bp_precision);
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

bool
sd_params_set_from_string (SdParams * p, const char *name, const char *value,
    char *msg, size_t size)
{
  static const struct
  {
    const char *name;
    size_t offset;
  } ints[] = {
    {"num-disparities", offsetof (SdParams, num_disparities)},
    {"min-disparity", offsetof (SdParams, min_disparity)},
    {"rank-window", offsetof (SdParams, rank_window)},
    {"paths", offsetof (SdParams, paths)},
    {"p1", offsetof (SdParams, p1)},
    {"p2", offsetof (SdParams, p2)},
    {"uniqueness", offsetof (SdParams, uniqueness)},
    {"lr-check", offsetof (SdParams, lr_check)},
    {"levels", offsetof (SdParams, levels)},
    {"iterations", offsetof (SdParams, iterations)},
    {"tile-size", offsetof (SdParams, tile_size)},
    {"outer-iterations", offsetof (SdParams, outer_iterations)},
    {"inner-iterations", offsetof (SdParams, inner_iterations)},
  }, floats[] = {
    {"data-weight", offsetof (SdParams, data_weight)},
    {"data-trunc", offsetof (SdParams, data_trunc)},
    {"disc-trunc", offsetof (SdParams, disc_trunc)},
    {"sigma", offsetof (SdParams, sigma)},
  }, bools[] = {
    {"p2-adaptive", offsetof (SdParams, p2_adaptive)},
    {"subpixel", offsetof (SdParams, subpixel)},
    {"median", offsetof (SdParams, median)},
    {"fill-holes", offsetof (SdParams, fill_holes)},
  };
  static const struct
  {
    const char *name;
    size_t offset;
    const SdEnumEntry *entries;
  } enums[] = {
    {"algorithm", offsetof (SdParams, algorithm), sd_algorithm_entries},
    {"prefilter", offsetof (SdParams, prefilter), sd_prefilter_entries},
    {"cost", offsetof (SdParams, cost), sd_cost_entries},
    {"census-window", offsetof (SdParams, census_window),
        sd_census_window_entries},
    {"bp-precision", offsetof (SdParams, bp_precision),
        sd_bp_precision_entries},
  };
  char *base = (char *) p;

  for (size_t i = 0; i < sizeof (ints) / sizeof (ints[0]); i++) {
    if (strcmp (name, ints[i].name) == 0) {
      if (!parse_int (value, (int *) (base + ints[i].offset)))
        return fail (msg, size, "%s: '%s' is not an integer", name, value);
      return true;
    }
  }
  for (size_t i = 0; i < sizeof (floats) / sizeof (floats[0]); i++) {
    if (strcmp (name, floats[i].name) == 0) {
      if (!parse_float (value, (float *) (base + floats[i].offset)))
        return fail (msg, size, "%s: '%s' is not a number", name, value);
      return true;
    }
  }
  for (size_t i = 0; i < sizeof (bools) / sizeof (bools[0]); i++) {
    if (strcmp (name, bools[i].name) == 0) {
      if (!parse_bool (value, (bool *) (base + bools[i].offset)))
        return fail (msg, size, "%s: '%s' is not true or false", name, value);
      return true;
    }
  }
  for (size_t i = 0; i < sizeof (enums) / sizeof (enums[0]); i++) {
    if (strcmp (name, enums[i].name) == 0) {
      int v;
      if (!sd_enum_from_nick (enums[i].entries, value, &v)) {
        char choices[256] = "";
        for (const SdEnumEntry * e = enums[i].entries; e->nick; e++) {
          strncat (choices, e->nick, sizeof (choices) - strlen (choices) - 1);
          if (e[1].nick)
            strncat (choices, ", ", sizeof (choices) - strlen (choices) - 1);
        }
        return fail (msg, size, "%s: '%s' is not one of %s", name, value,
            choices);
      }
      /* enums are stored as their C enum type, which is int-sized here */
      *(int *) (base + enums[i].offset) = v;
      return true;
    }
  }
  return fail (msg, size, "unknown parameter '%s'", name);
}
