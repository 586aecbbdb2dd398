#include "sd-colormap.h"

#include <math.h>

const SdEnumEntry sd_colormap_entries[] = {
  {"turbo", SD_COLORMAP_TURBO, "Turbo (perceptually smooth rainbow)"},
  {"jet", SD_COLORMAP_JET, "Jet (classic rainbow)"},
  {"grayscale", SD_COLORMAP_GRAYSCALE, "Grayscale (near is bright)"},
  {NULL, 0, NULL}
};

typedef struct
{
  double t;
  double r, g, b;
} Stop;

/* Turbo's shape, as eleven evenly spaced stops (dark blue, blue, cyan,
 * green, yellow, orange, dark red), joined linearly. */
static const Stop turbo[] = {
  {0.0, 48, 18, 59}, {0.1, 69, 91, 205}, {0.2, 62, 156, 254},
  {0.3, 24, 214, 203}, {0.4, 70, 247, 131}, {0.5, 164, 252, 60},
  {0.6, 225, 221, 55}, {0.7, 254, 163, 49}, {0.8, 239, 90, 17},
  {0.9, 194, 36, 3}, {1.0, 122, 4, 3},
};

static const Stop jet[] = {
  {0.0, 0, 0, 128}, {0.125, 0, 0, 255}, {0.375, 0, 255, 255},
  {0.625, 255, 255, 0}, {0.875, 255, 0, 0}, {1.0, 128, 0, 0},
};

static const Stop grayscale[] = {
  {0.0, 0, 0, 0}, {1.0, 255, 255, 255},
};

static void
interpolate (const Stop * stops, int n, double t, uint8_t rgb[3])
{
  int i = 0;
  while (i < n - 2 && t > stops[i + 1].t)
    i++;
  const Stop *a = &stops[i], *b = &stops[i + 1];
  double f = (t - a->t) / (b->t - a->t);
  rgb[0] = (uint8_t) lrint (a->r + (b->r - a->r) * f);
  rgb[1] = (uint8_t) lrint (a->g + (b->g - a->g) * f);
  rgb[2] = (uint8_t) lrint (a->b + (b->b - a->b) * f);
}

void
sd_colormap_rgb (SdColormap map, double t, uint8_t rgb[3])
{
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  switch (map) {
    case SD_COLORMAP_JET:
      interpolate (jet, sizeof (jet) / sizeof (jet[0]), t, rgb);
      break;
    case SD_COLORMAP_GRAYSCALE:
      interpolate (grayscale, 2, t, rgb);
      break;
    case SD_COLORMAP_TURBO:
    default:
      interpolate (turbo, sizeof (turbo) / sizeof (turbo[0]), t, rgb);
      break;
  }
}

void
sd_colormap_table (SdColormap map, uint8_t table[256][3])
{
  for (int i = 0; i < 256; i++)
    sd_colormap_rgb (map, i / 255.0, table[i]);
}
