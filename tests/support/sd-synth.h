/* Synthetic stereo scenes with known disparity, for tests and the demo.
 *
 * A scene is a stack of textured planar layers.  Layer i covers a rectangle
 * of the left image (or all of it) and has left-image disparity
 * d(x, y) = a + b * x + c * y; the layer with the largest disparity in front
 * wins.  Both views are rendered from the same continuous texture, so the
 * right image is exact, and the ground truth says which left pixels are
 * visible in the right image. */
#ifndef SD_SYNTH_H
#define SD_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct
{
  int x0, y0, x1, y1;           /* region [x0, x1) x [y0, y1); x1 == 0: all */
  double a, b, c;               /* d = a + b * x + c * y */
} SdSynthLayer;

typedef struct
{
  int width, height;
  uint8_t *left, *right;        /* GRAY8, width * height */
  float *gt;                    /* left-image disparity */
  uint8_t *visible;             /* 1 where the left pixel is seen in the right image */
} SdSynthPair;

/* Renders the layers; seed picks the textures.  Returns false on OOM. */
bool sd_synth_render (SdSynthPair * pair, int width, int height,
    const SdSynthLayer * layers, int n_layers, uint32_t seed);
void sd_synth_free (SdSynthPair * pair);

/* Uniform random bytes (a pure noise texture), for size and agreement
 * tests where no ground truth is needed. */
void sd_synth_noise (uint8_t * dst, size_t n, uint32_t seed);

/* Scenes the accuracy tests of several methods share, each with the
 * disparity range it is run with; sd_synth_scenes[n].name is NULL after
 * the last. */
typedef struct
{
  const char *name;
  const SdSynthLayer *layers;
  int n_layers, num_disparities;
} SdSynthScene;

extern const SdSynthScene sd_synth_scenes[];

/* The demo scene: a slanted background, a box and a floating plane. */
bool sd_synth_demo (SdSynthPair * pair, int width, int height);

#endif
