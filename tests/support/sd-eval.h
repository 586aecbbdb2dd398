/* Stereo sets with ground truth, and the accuracy measures of sd-bench and
 * the accuracy tests. */
#ifndef SD_EVAL_H
#define SD_EVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sd-engine.h"
#include "sd-image.h"

/* A set folder of ../shared/data/stereo or stereo-extra, decoded through
 * its sets.tsv: images in PNG, PPM or PGM; ground truth as gt_decode says
 * ("uint8/N" or "uint16/N": the stored value divided by N). */
typedef struct
{
  char name[64];
  SdImage *left, *right;
  float *gt;                    /* disparity in pixels, 0 = no ground truth
                                 * at that pixel; NULL: the set has none */
  int suggested_disparities;    /* sets.tsv's ndisp_x16 */
} SdStereoSet;

/* dir is the set folder; sets.tsv is read from the folder above it.
 * Missing or malformed files give a sentence naming the file. */
bool sd_stereo_set_load (SdStereoSet * set, const char *dir, char *msg,
    size_t msg_size);
/* The set called name in data_dir (data_dir/name, as sd_stereo_set_load). */
bool sd_stereo_set_open (SdStereoSet * set, const char *data_dir,
    const char *name, char *msg, size_t msg_size);
void sd_stereo_set_free (SdStereoSet * set);
/* The set names data_dir/sets.tsv lists, in its order, at most max of them;
 * -1 when there is no such index. */
int sd_stereo_set_names (const char *data_dir, char names[][64], int max);

typedef struct
{
  long gt_pixels;               /* pixels with ground truth */
  double bad05, bad1, bad2;     /* percent of gt_pixels; invalid counts bad */
  double mae;                   /* mean |d - gt| over valid gt pixels, px */
  double invalid;               /* percent of gt_pixels with no output */
  double bad1_valid;            /* percent of the gt pixels with an output
                                 * that are more than 1 px off */
  double invalid_all;           /* percent of all pixels with no output */
} SdAccuracy;

/* Scores a disparity in the output contract's encoding (16 * d, 0 =
 * invalid) against gt (0 = no ground truth; NULL: only invalid_all is
 * measured); mask, when not NULL, limits the pixels counted to those where
 * it is non-zero. */
SdAccuracy sd_accuracy_score (const uint16_t * disp, size_t disp_stride,
    const float *gt, const uint8_t * mask, int width, int height);

/* What fill-holes makes of a disparity output computed with it off (16 * d,
 * 0 = invalid, rows packed), by the reference's stages, as the engine runs
 * them on the whole frame: speckles removed, then the rows' starts and the
 * runs filled (params: the disparity range they are clamped to).  conf,
 * when not NULL, is that output's confidence plane (packed): the speckles'
 * become 0. */
void sd_output_fill_holes (const SdParams * params, uint16_t * out,
    uint8_t * conf, int width, int height);
/* What the guided median makes of a disparity output computed with it off
 * (16 * d, 0 = invalid, rows packed), guide the left luma (packed). */
void sd_output_guided_median (uint16_t * out, const uint8_t * guide,
    int width, int height);

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
