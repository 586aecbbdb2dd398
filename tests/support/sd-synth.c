#include "sd-synth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* xorshift32: small, and the same sequence on every platform */
static uint32_t
next_random (uint32_t * s)
{
  uint32_t x = *s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *s = x;
}

void
sd_synth_noise (uint8_t * dst, size_t n, uint32_t seed)
{
  uint32_t s = seed ? seed : 1;
  for (size_t i = 0; i < n; i++)
    dst[i] = (uint8_t) (next_random (&s) >> 24);
}

/* A texture is a grid of random values, one per integer position, read
 * with bilinear interpolation so that it is defined at fractional x. */
typedef struct
{
  int width, height;
  uint8_t *values;
} Texture;

static double
texture_at (const Texture * t, double x, int y)
{
  /* the texture grid has a margin so that warped reads stay inside */
  x += t->width / 4;
  if (x < 0)
    x = 0;
  if (x > t->width - 2)
    x = t->width - 2;
  int xi = (int) floor (x);
  double f = x - xi;
  const uint8_t *row = t->values + (size_t) y * t->width;
  return row[xi] * (1 - f) + row[xi + 1] * f;
}

static bool
in_layer (const SdSynthLayer * l, double x, int y)
{
  if (l->x1 == 0)
    return true;
  return x >= l->x0 && x < l->x1 && y >= l->y0 && y < l->y1;
}

static double
layer_disparity (const SdSynthLayer * l, double x, int y)
{
  return l->a + l->b * x + l->c * y;
}

/* Left x of the point of layer l that right pixel xr sees in row y:
 * x - d(x) = xr, solved for the plane. */
static double
layer_left_x (const SdSynthLayer * l, int xr, int y)
{
  return (xr + l->a + l->c * y) / (1.0 - l->b);
}

bool
sd_synth_render (SdSynthPair * p, int width, int height,
    const SdSynthLayer * layers, int n, uint32_t seed)
{
  memset (p, 0, sizeof (*p));
  size_t npix = (size_t) width * height;
  p->width = width;
  p->height = height;
  p->left = malloc (npix);
  p->right = malloc (npix);
  p->gt = malloc (npix * sizeof (float));
  p->visible = malloc (npix);
  Texture *tex = calloc ((size_t) n, sizeof (Texture));
  int *owner = malloc (npix * sizeof (int));
  int *right_owner = malloc ((size_t) width * sizeof (int));
  bool ok = p->left && p->right && p->gt && p->visible && tex && owner
      && right_owner;
  for (int i = 0; ok && i < n; i++) {
    tex[i].width = 2 * width + 8;
    tex[i].height = height;
    tex[i].values = malloc ((size_t) tex[i].width * height);
    ok = tex[i].values != NULL;
    if (ok)
      sd_synth_noise (tex[i].values, (size_t) tex[i].width * height,
          seed * 7919u + (uint32_t) i * 104729u + 1u);
  }
  for (int y = 0; ok && y < height; y++) {
    for (int x = 0; x < width; x++) {
      int best = -1;
      double bd = -1e9;
      for (int i = 0; i < n; i++) {
        double d = layer_disparity (&layers[i], x, y);
        if (in_layer (&layers[i], x, y) && d > bd) {
          bd = d;
          best = i;
        }
      }
      size_t pix = (size_t) y * width + x;
      owner[pix] = best;
      p->gt[pix] = best >= 0 ? (float) bd : 0.f;
      p->left[pix] = best >= 0 ? (uint8_t) lrint (texture_at (&tex[best], x,
              y)) : 0;
    }
    for (int xr = 0; xr < width; xr++) {
      int best = -1;
      double bd = -1e9, bx = 0;
      for (int i = 0; i < n; i++) {
        double x = layer_left_x (&layers[i], xr, y);
        double d = layer_disparity (&layers[i], x, y);
        if (in_layer (&layers[i], x, y) && d > bd) {
          bd = d;
          best = i;
          bx = x;
        }
      }
      right_owner[xr] = best;
      p->right[(size_t) y * width + xr] = best >= 0 ?
          (uint8_t) lrint (texture_at (&tex[best], bx, y)) : 0;
    }
    /* a left pixel is visible when the right pixels it falls between show
     * its own layer in front */
    for (int x = 0; x < width; x++) {
      size_t pix = (size_t) y * width + x;
      double xr = x - p->gt[pix];
      p->visible[pix] = owner[pix] >= 0 && xr >= 0 && xr <= width - 1
          && right_owner[(int) floor (xr)] == owner[pix]
          && right_owner[(int) ceil (xr)] == owner[pix];
    }
  }
  for (int i = 0; tex && i < n; i++)
    free (tex[i].values);
  free (tex);
  free (owner);
  free (right_owner);
  if (!ok)
    sd_synth_free (p);
  return ok;
}

void
sd_synth_free (SdSynthPair * p)
{
  free (p->left);
  free (p->right);
  free (p->gt);
  free (p->visible);
  memset (p, 0, sizeof (*p));
}

bool
sd_synth_demo (SdSynthPair * p, int width, int height)
{
  const SdSynthLayer layers[] = {
    /* background: a floor-like plane leaning back towards the top */
    {0, 0, 0, 0, 4.0, 0.0, 12.0 / height},
    /* a box in front on the left */
    {width / 8, height / 3, width / 8 + width / 4, height - height / 8,
        26.0, 0.0, 0.0},
    /* a plane turned about the vertical axis on the right */
    {width / 2, height / 5, width - width / 10, height / 2 + height / 5,
        8.0, 16.0 / width, 0.0},
  };
  return sd_synth_render (p, width, height, layers, 3, 2024);
}

static const SdSynthLayer scene_planes[] = {
  {0, 0, 0, 0, 6, 0, 0}, {30, 20, 100, 90, 18, 0, 0},
  {110, 60, 180, 140, 31, 0, 0},
};
static const SdSynthLayer scene_slanted[] = { {0, 0, 0, 0, 9, 0.06, 0.04} };
static const SdSynthLayer scene_texture[] = { {0, 0, 0, 0, 13, 0, 0} };

const SdSynthScene sd_synth_scenes[] = {
  {"fronto-parallel planes", scene_planes, 3, 48},
  {"slanted plane", scene_slanted, 1, 32},
  {"random texture", scene_texture, 1, 32},
  {NULL, NULL, 0, 0}
};
