/* Awkward sizes and layouts: one-pixel rows and columns, images narrower
 * than the disparity range, odd widths, padded strides, every input pixel
 * layout, and the engine's refusals. */
#include <stdio.h>
#include <string.h>

#include "sd-engine.h"
#include "sd-synth.h"
#include "sd-test.h"

/* Runs the CPU engine; checks every output value keeps the contract. */
static uint16_t *
run (const SdParams * p, const SdPlane * left, const SdPlane * right)
{
  SdError err;
  SdEngine *e = sd_engine_new ("cpu", 0, p, &err);
  SD_CHECK (e != NULL, "%s", err.message);
  if (!e)
    return NULL;
  const int w = left->width, h = left->height;
  uint16_t *disp = malloc (sizeof (uint16_t) * w * h);
  SdPlane out = { disp, w, h, sizeof (uint16_t) * w, SD_PIXEL_GRAY16 };
  SD_CHECK (sd_engine_process (e, left, right, &out, NULL, &err) == SD_OK,
      "%dx%d: %s", w, h, err.message);
  const int lo = 16 * p->min_disparity - 8;
  const int hi = 16 * (p->min_disparity + p->num_disparities - 1) + 8;
  for (int i = 0; i < w * h; i++)
    SD_CHECK (disp[i] == 0 || (disp[i] >= lo && disp[i] <= hi),
        "%dx%d: value %d at %d outside 0 or [%d, %d]", w, h, disp[i], i,
        lo, hi);
  sd_engine_free (e);
  return disp;
}

static void
check_size (int w, int h, int num_disparities, int min_disparity)
{
  uint8_t *l = malloc ((size_t) w * h), *r = malloc ((size_t) w * h);
  sd_synth_noise (l, (size_t) w * h, 11);
  sd_synth_noise (r, (size_t) w * h, 12);
  SdParams p;
  sd_params_init (&p);
  p.num_disparities = num_disparities;
  p.min_disparity = min_disparity;
  for (int fill = 0; fill <= 1; fill++) {
    p.fill_holes = fill ? SD_FILL_HOLES_ON : SD_FILL_HOLES_OFF;
    SdPlane left = { l, w, h, (size_t) w, SD_PIXEL_GRAY8 };
    SdPlane right = { r, w, h, (size_t) w, SD_PIXEL_GRAY8 };
    free (run (&p, &left, &right));
  }
  free (l);
  free (r);
}

/* The same pair given with padded strides and in other pixel layouts must
 * give exactly the same disparity as the packed GRAY8 luma. */
static void
check_layouts (void)
{
  const int w = 37, h = 23;
  SdSynthPair pair;
  const SdSynthLayer layers[] = { {0, 0, 0, 0, 5, 0, 0}, {10, 5, 25, 18, 11,
          0, 0}
  };
  sd_synth_render (&pair, w, h, layers, 2, 3);
  SdParams p;
  sd_params_init (&p);
  p.num_disparities = 16;
  SdPlane left = { pair.left, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  SdPlane right = { pair.right, w, h, (size_t) w, SD_PIXEL_GRAY8 };
  uint16_t *expect = run (&p, &left, &right);

  const SdPixelFormat formats[] = { SD_PIXEL_GRAY8, SD_PIXEL_GRAY16,
    SD_PIXEL_RGB, SD_PIXEL_BGR, SD_PIXEL_RGBX, SD_PIXEL_BGRX, SD_PIXEL_XRGB,
    SD_PIXEL_XBGR, SD_PIXEL_YUYV, SD_PIXEL_UYVY, SD_PIXEL_GRAY16_LE,
    SD_PIXEL_GRAY10_LE, SD_PIXEL_GRAY12_LE, SD_PIXEL_AYUV, SD_PIXEL_VUYA
  };
  for (size_t f = 0; f < sizeof (formats) / sizeof (formats[0]); f++) {
    const SdPixelLayout *lay = sd_pixel_layout (formats[f]);
    const size_t stride = (size_t) w * lay->bytes_per_pixel + 13;
    uint8_t *bl = calloc ((size_t) h, stride), *br = calloc ((size_t) h,
        stride);
    for (int y = 0; y < h; y++) {
      for (int x = 0; x < w; x++) {
        for (int side = 0; side < 2; side++) {
          const uint8_t v = (side ? pair.right : pair.left)[y * w + x];
          uint8_t *px = (side ? br : bl) + y * stride +
              (size_t) x * lay->bytes_per_pixel;
          if (formats[f] == SD_PIXEL_GRAY16) {
            uint16_t v16 = (uint16_t) (v << 8 | 0x5a);
            memcpy (px, &v16, 2);
          } else if (lay->luma >= 0) {
            /* the bytes beside the luma (packed YUV's chroma, a 16-bit
             * sample's low bits) vary and must not count */
            const unsigned noise = (x * 37 + y) & 0xff;
            memset (px, noise, (size_t) lay->bytes_per_pixel);
            if (lay->luma_shift) {
              const unsigned sample = (unsigned) v << lay->luma_shift |
                  (noise & ((1u << lay->luma_shift) - 1));
              px[lay->luma] = sample & 0xff;
              px[lay->luma + 1] = sample >> 8;
            } else {
              px[lay->luma] = v;
            }
          } else {
            /* gray colour: luma of (v, v, v) is v */
            px[lay->r] = px[lay->g] = px[lay->b] = v;
          }
        }
      }
    }
    SdPlane pl = { bl, w, h, stride, formats[f] };
    SdPlane pr = { br, w, h, stride, formats[f] };
    uint16_t *got = run (&p, &pl, &pr);
    SD_CHECK (got && memcmp (got, expect, sizeof (uint16_t) * w * h) == 0,
        "layout %d with padded stride differs from packed GRAY8", (int)
        formats[f]);
    free (got);
    free (bl);
    free (br);
  }
  free (expect);
  sd_synth_free (&pair);
}

static void
check_refusals (void)
{
  SdParams p;
  sd_params_init (&p);
  SdError err;
  SdEngine *e = sd_engine_new ("cpu", 0, &p, &err);
  uint8_t a[64 * 48] = { 0 }, b[60 * 48] = { 0 };
  uint16_t out[64 * 48];
  SdPlane left = { a, 64, 48, 64, SD_PIXEL_GRAY8 };
  SdPlane right = { b, 60, 48, 60, SD_PIXEL_GRAY8 };
  SdPlane o = { out, 64, 48, 128, SD_PIXEL_GRAY16 };
  SD_CHECK (sd_engine_process (e, &left, &right, &o, NULL, &err) ==
      SD_ERROR_INVALID_ARGUMENT, "size mismatch accepted");
  SD_CHECK (strstr (err.message, "64x48") && strstr (err.message, "60x48"),
      "message does not name both sizes: %s", err.message);
  SdPlane short_stride = { a, 64, 48, 32, SD_PIXEL_GRAY8 };
  SD_CHECK (sd_engine_process (e, &short_stride, &short_stride, &o, NULL,
          &err) == SD_ERROR_INVALID_ARGUMENT, "short stride accepted");
  SdPlane small_out = { out, 32, 48, 64, SD_PIXEL_GRAY16 };
  SD_CHECK (sd_engine_process (e, &left, &left, &small_out, NULL, &err) ==
      SD_ERROR_INVALID_ARGUMENT, "wrong output size accepted");
  /* a bad parameter set is refused and the old one kept */
  SdParams bad = p;
  bad.num_disparities = -1;
  SD_CHECK (sd_engine_set_params (e, &bad, &err) ==
      SD_ERROR_INVALID_ARGUMENT, "num-disparities -1 accepted");
  SD_CHECK_INT (sd_engine_get_params (e)->num_disparities,
      p.num_disparities);
  SD_CHECK (sd_engine_new ("cpu", 0, &bad, &err) == NULL,
      "engine made with bad parameters");
  SD_CHECK (strstr (err.message, "num-disparities") != NULL, "message: %s",
      err.message);
  sd_engine_free (e);
}

/* num-disparities 0 searches the count sd_params_disparities gives each
 * pair's width: the same output as that count given, pair by pair, with
 * pairs of other widths through one engine. */
static void
check_automatic_range (SdAlgorithm algorithm)
{
  const int h = 12, widths[] = { 150, 40, 700 };
  SdParams automatic;
  sd_params_init (&automatic);
  automatic.algorithm = algorithm;
  SdError err;
  SdEngine *e = sd_engine_new ("cpu", 0, &automatic, &err);
  SD_CHECK (e != NULL, "%s", err.message);
  if (!e)
    return;
  for (size_t i = 0; i < sizeof (widths) / sizeof (widths[0]); i++) {
    const int w = widths[i];
    uint8_t *l = malloc ((size_t) w * h), *r = malloc ((size_t) w * h);
    uint16_t *disp = malloc (sizeof (uint16_t) * w * h);
    sd_synth_noise (l, (size_t) w * h, 21);
    /* the right view is the left moved by 20 pixels: found by every
     * automatic range here but the narrowest (16) */
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        r[y * w + x] = x + 20 < w ? l[y * w + x + 20] : l[y * w + x];
    SdPlane left = { l, w, h, (size_t) w, SD_PIXEL_GRAY8 };
    SdPlane right = { r, w, h, (size_t) w, SD_PIXEL_GRAY8 };
    SdPlane out = { disp, w, h, sizeof (uint16_t) * w, SD_PIXEL_GRAY16 };
    SD_CHECK (sd_engine_process (e, &left, &right, &out, NULL, &err) ==
        SD_OK, "%d wide: %s", w, err.message);
    SdParams given = automatic;
    given.num_disparities = sd_params_disparities (&automatic, w);
    uint16_t *expect = run (&given, &left, &right);
    SD_CHECK (expect && !memcmp (disp, expect, sizeof (uint16_t) * w * h),
        "%s, %d wide: the automatic range differs from %d disparities",
        sd_enum_to_nick (sd_algorithm_entries, algorithm), w,
        given.num_disparities);
    if (given.num_disparities > 20) {
      size_t found = 0;
      for (int y = 0; y < h; y++)
        for (int x = 30; x < w - 30; x++)
          found += disp[y * w + x] == 16 * 20;
      SD_CHECK (found > (size_t) (w - 60) * h / 2, "%s, %d wide: %zu "
          "pixels at disparity 20", sd_enum_to_nick (sd_algorithm_entries,
              algorithm), w, found);
    }
    free (expect);
    free (disp);
    free (l);
    free (r);
  }
  SD_CHECK_INT (sd_engine_get_params (e)->num_disparities, 0);
  sd_engine_free (e);
}

int
main (void)
{
  check_size (1, 1, 1, 0);
  check_size (1, 9, 16, 0);     /* one column */
  check_size (57, 1, 16, 0);    /* one row */
  check_size (300, 1, 256, 0);
  check_size (13, 11, 64, 0);   /* narrower than the range */
  check_size (31, 17, 100, 3);
  check_size (33, 9, 48, 40);   /* most pixels left of min-disparity */
  check_size (65, 33, 1, 0);
  check_size (127, 45, 256, 0);
  check_layouts ();
  check_refusals ();
  check_automatic_range (SD_ALGORITHM_SGM);
  check_automatic_range (SD_ALGORITHM_HBP);
  check_automatic_range (SD_ALGORITHM_TILED_BP);
  return sd_test_exit ("test-edge-sizes");
}
