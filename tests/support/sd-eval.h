/* Stereo sets with ground truth, and the accuracy measures of sd-bench and
 * the accuracy tests. */
#ifndef SD_EVAL_H
#define SD_EVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sd-engine.h"
#include "sd-image.h"

/* A set folder of ../shared/data/stereo, decoded through its sets.tsv. */
typedef struct
{
  char name[64];
  SdImage *left, *right;
  float *gt;                    /* disparity in pixels; 0 = no ground truth */
  int suggested_disparities;    /* sets.tsv's ndisp_x16 */
} SdStereoSet;

/* dir is the set folder; sets.tsv is read from the folder above it. */
bool sd_stereo_set_load (SdStereoSet * set, const char *dir, char *msg,
    size_t msg_size);
/* The set called name in data_dir (data_dir/name, as sd_stereo_set_load). */
bool sd_stereo_set_open (SdStereoSet * set, const char *data_dir,
    const char *name, char *msg, size_t msg_size);
void sd_stereo_set_free (SdStereoSet * set);

typedef struct
{
  long gt_pixels;               /* pixels with ground truth */
  double bad05, bad1, bad2;     /* percent of gt_pixels; invalid counts bad */
  double mae;                   /* mean |d - gt| over valid gt pixels, px */
  double invalid;               /* percent of gt_pixels with no output */
} SdAccuracy;

/* Scores a disparity in the output contract's encoding (16 * d, 0 =
 * invalid) against gt (0 = no ground truth); mask, when not NULL, limits
 * the pixels counted to those where it is non-zero. */
SdAccuracy sd_accuracy_score (const uint16_t * disp, size_t disp_stride,
    const float *gt, const uint8_t * mask, int width, int height);

/* Runs a backend once on a pair of planes; returns the output (16 * d,
 * 0 = invalid, width * height values the caller frees), or NULL with err
 * set. */
uint16_t *sd_engine_run_once (const char *backend, const SdParams * params,
    const SdPlane * left, const SdPlane * right, SdError * err);

/* Loads set name from data_dir (a folder with sets.tsv), runs a backend on
 * it and scores the output.  Returns false with a sentence in msg when the
 * set cannot be read or the engine fails. */
bool sd_stereo_set_score (const char *data_dir, const char *name,
    const char *backend, const SdParams * params, SdAccuracy * accuracy,
    char *msg, size_t msg_size);

/* Runs a backend on a set with params and scores its output against the
 * set's ground truth.  Returns false with err set when the engine fails. */
bool sd_stereo_set_run (const SdStereoSet * set, const char *backend,
    const SdParams * params, SdAccuracy * accuracy, SdError * err);

#endif
