/* align-rows: the measurement of the rows' offset (sd-row-align.h), the
 * maps that move the right view's rows (sd_rectification_realign_right),
 * and what the engine does with them: a synthetic scene whose right view
 * is moved by known offsets must be measured within MEASURE_TOLERANCE
 * rows, one turned by TURN_DEGREES within SLOPE_TOLERANCE of its slope
 * (one whose upper half alone turns not turned), one scaled by SCALE
 * within SCALE_TOLERANCE (one whose left half alone is scaled not
 * scaled), a flat pair not at all,
 * and the engine's output must be what the same pair gives through maps
 * that move the rows by what it measured. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sd-engine.h"
#include "sd-synth.h"
#include "sd-test.h"

#define W 320
#define H 160
#define MEASURE_TOLERANCE 0.2
/* a turn whose rows reach 0.84 rows at the frame's sides; measured within
 * 0.16 rows there */
#define TURN_DEGREES 0.3
#define SLOPE_TOLERANCE 0.001
/* a scale whose rows reach 1.2 rows at the top and bottom; measured
 * within 0.16 rows there */
#define SCALE 0.015
#define SCALE_TOLERANCE 0.002

static const SdSynthLayer scene[] = {
  {0, 0, 0, 0, 4.0, 0.01, 0.0},
  {60, 30, 180, 120, 14.0, 0.0, 0.0},
  {200, 50, 300, 140, 24.0, 0.0, 0.0},
};

/* dst: src's rows moved down by rows (linear between rows, the edges
 * repeated): dst(y) = src(y - rows). */
static void
move_rows (const uint8_t * src, uint8_t * dst, double rows)
{
  for (int y = 0; y < H; y++) {
    double sy = y - rows;
    sy = sy < 0 ? 0 : sy > H - 1 ? H - 1 : sy;
    const int y0 = (int) sy, y1 = y0 + 1 < H ? y0 + 1 : y0;
    const double t = sy - y0;
    for (int x = 0; x < W; x++)
      dst[y * W + x] = (uint8_t) lround ((1 - t) * src[y0 * W + x] +
          t * src[y1 * W + x]);
  }
}

/* dst: src seen by a right camera turned by degrees about the frame's
 * centre, scaled by 1 + scale and rows lower: dst read through the maps of
 * sd_rectification_realign_right (NULL, W, H, rows, tan (turn), scale)
 * gives src (bilinear, the edges repeated). */
static void
camera_view (const uint8_t * src, uint8_t * dst, double degrees,
    double scale, double rows)
{
  const double turn = degrees * 3.14159265358979 / 180;
  const double c = cos (turn) / (1 + scale), s = sin (turn) / (1 + scale);
  const double cx = (W - 1) / 2.0, cy = (H - 1) / 2.0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      double sx = cx + c * (x - cx) + s * (y - rows - cy);
      double sy = cy - s * (x - cx) + c * (y - rows - cy);
      sx = sx < 0 ? 0 : sx > W - 1 ? W - 1 : sx;
      sy = sy < 0 ? 0 : sy > H - 1 ? H - 1 : sy;
      const int x0 = (int) sx, y0 = (int) sy;
      const int x1 = x0 + 1 < W ? x0 + 1 : x0, y1 = y0 + 1 < H ? y0 + 1 : y0;
      const double fx = sx - x0, fy = sy - y0;
      dst[y * W + x] = (uint8_t) lround ((1 - fy) * ((1 - fx) * src[y0 * W +
                  x0] + fx * src[y0 * W + x1]) + fy * ((1 - fx) * src[y1 *
                  W + x0] + fx * src[y1 * W + x1]));
    }
}

/* A right view of which one part alone moves: no camera does that, so
 * neither a turn nor a scale is taken (what a part of a scene can do to
 * its votes) */
static void
check_part_moved (const SdSynthPair * pair, const uint8_t * right,
    const char *what)
{
  const SdRowOffset r = sd_row_offset_measure (pair->left, right, W, H, 0,
      32);
  printf ("%s: measured %+.3f rows, slope %+.5f, scale %+.4f from %d "
      "patches\n", what, r.offset, r.slope, r.scale, r.patches);
  SD_CHECK (r.measured && r.slope == 0.0 && r.scale == 0.0, "%s: slope "
      "%+.5f, scale %+.4f taken", what, r.slope, r.scale);
}

static void
check_turn (const SdSynthPair * pair)
{
  uint8_t turned[W * H];
  for (int sign = -1; sign <= 1; sign += 2) {
    camera_view (pair->right, turned, sign * TURN_DEGREES, 0.0, 1.0);
    const SdRowOffset r = sd_row_offset_measure (pair->left, turned, W, H, 0,
        32);
    const double slope = tan (sign * TURN_DEGREES * 3.14159265358979 / 180);
    printf ("turned %+.1f degrees, a row lower: measured %+.3f rows, slope "
        "%+.5f (%+.5f) from %d patches\n", sign * TURN_DEGREES, r.offset,
        r.slope, slope, r.patches);
    SD_CHECK (r.measured && fabs (r.offset - 1.0) <= MEASURE_TOLERANCE
        && fabs (r.slope - slope) <= SLOPE_TOLERANCE, "turned %+.1f "
        "degrees: measured %+.3f rows, slope %+.5f", sign * TURN_DEGREES,
        r.offset, r.slope);
  }
  /* the upper half turned and the lower not */
  uint8_t lower[W * H];
  camera_view (pair->right, turned, TURN_DEGREES, 0.0, 1.0);
  camera_view (pair->right, lower, 0.0, 0.0, 1.0);
  memcpy (turned + W * H / 2, lower + W * H / 2, W * H / 2);
  check_part_moved (pair, turned, "the upper half turned");
}

/* A right camera whose focal length is 1.5 % longer or shorter: its rows
 * reach 1.2 rows off at the top and bottom */
static void
check_scale (const SdSynthPair * pair)
{
  uint8_t scaled[W * H];
  for (int sign = -1; sign <= 1; sign += 2) {
    camera_view (pair->right, scaled, 0.0, sign * SCALE, 0.5);
    const SdRowOffset r = sd_row_offset_measure (pair->left, scaled, W, H, 0,
        32);
    printf ("scaled %+.1f %%, half a row lower: measured %+.3f rows, "
        "scale %+.4f, slope %+.5f from %d patches\n", sign * SCALE * 100,
        r.offset, r.scale, r.slope, r.patches);
    SD_CHECK (r.measured && fabs (r.offset - 0.5) <= MEASURE_TOLERANCE
        && fabs (r.scale - sign * SCALE) <= SCALE_TOLERANCE
        && fabs (r.slope) <= SLOPE_TOLERANCE, "scaled %+.1f %%: measured "
        "%+.3f rows, scale %+.4f, slope %+.5f", sign * SCALE * 100,
        r.offset, r.scale, r.slope);
  }
  /* the left half scaled and the right not */
  uint8_t plain[W * H];
  camera_view (pair->right, scaled, 0.0, SCALE, 0.5);
  camera_view (pair->right, plain, 0.0, 0.0, 0.5);
  for (int y = 0; y < H; y++)
    memcpy (scaled + y * W + W / 2, plain + y * W + W / 2, W / 2);
  check_part_moved (pair, scaled, "the left half scaled");
}

static void
check_measure (const SdSynthPair * pair)
{
  static const double offsets[] = { 0.0, 1.0, -2.0, 3.0, 0.5, -1.5 };
  uint8_t moved[W * H];
  for (size_t i = 0; i < sizeof (offsets) / sizeof (offsets[0]); i++) {
    move_rows (pair->right, moved, offsets[i]);
    const SdRowOffset r = sd_row_offset_measure (pair->left, moved, W, H, 0,
        32);
    printf ("moved %+.1f rows: measured %+.3f from %d patches\n",
        offsets[i], r.offset, r.patches);
    SD_CHECK (r.measured && fabs (r.offset - offsets[i]) <=
        MEASURE_TOLERANCE, "moved %+.1f rows: measured %+.3f (%s, %d "
        "patches)", offsets[i], r.offset, r.measured ? "measured" : "not "
        "measured", r.patches);
  }
  /* a flat pair has no texture to measure */
  uint8_t flat[W * H];
  memset (flat, 128, sizeof (flat));
  const SdRowOffset r = sd_row_offset_measure (flat, flat, W, H, 0, 32);
  SD_CHECK (!r.measured && r.patches == 0, "a flat pair measured %+.3f "
      "from %d patches", r.offset, r.patches);
}

/* Maps of a shift by whole rows read exactly those rows; 0 rows of a
 * calibration's maps are those maps; every result has an id of its own. */
static void
check_maps (void)
{
  SdRectification *down = sd_rectification_realign_right (NULL, W, H, 2.0,
      0.0, 0.0);
  SdRectification *again = sd_rectification_realign_right (down, W, H, 0.0,
      0.0, 0.0);
  SD_CHECK (down && again, "out of memory");
  if (!down || !again)
    return;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const int32_t *l = down->map[0] + 2 * (y * W + x);
      const int32_t *r = down->map[1] + 2 * (y * W + x);
      const int ry = y + 2 < H ? y + 2 : H - 1;
      SD_CHECK (l[0] == x * SD_RECTIFY_ONE && l[1] == y * SD_RECTIFY_ONE
          && r[0] == x * SD_RECTIFY_ONE && r[1] == ry * SD_RECTIFY_ONE,
          "(%d, %d): left reads (%d, %d), right (%d, %d)", x, y, l[0], l[1],
          r[0], r[1]);
    }
  SD_CHECK (!memcmp (again->map[0], down->map[0], sizeof (int32_t) * 2 * W *
          H) && !memcmp (again->map[1], down->map[1], sizeof (int32_t) * 2 *
          W * H), "0 rows changed the maps");
  SD_CHECK (down->id != again->id, "two maps share id %llu",
      (unsigned long long) down->id);
  sd_rectification_free (down);
  sd_rectification_free (again);
}

/* Runs engine on the pair; returns false on error. */
static bool
process (SdEngine * e, const uint8_t * l, const uint8_t * r, uint16_t * out)
{
  SdPlane left = { (void *) l, W, H, W, SD_PIXEL_GRAY8 };
  SdPlane right = { (void *) r, W, H, W, SD_PIXEL_GRAY8 };
  SdPlane o = { out, W, H, 2 * W, SD_PIXEL_GRAY16 };
  SdError err;
  const bool ok = sd_engine_process (e, &left, &right, &o, NULL, &err) ==
      SD_OK;
  SD_CHECK (ok, "%s", err.message);
  return ok;
}

/* The engine's output a for the pair (left, right) is what plain gives
 * through calib's maps (NULL: none) moved by what the engine measured. */
static void
check_maps_given (const SdEngine * e, SdEngine * plain,
    const SdRectification * calib, const uint8_t * left,
    const uint8_t * right, const uint16_t * a, uint16_t * b, const char *what)
{
  const SdRowOffset r = sd_engine_row_offset (e);
  SdError err;
  SdRectification *maps = sd_rectification_realign_right (calib, W, H,
      r.offset, r.slope, r.scale);
  if (sd_engine_set_rectification (plain, maps, &err) == SD_OK
      && process (plain, left, right, b))
    SD_CHECK (!memcmp (a, b, sizeof (uint16_t) * W * H), "%s: the engine's "
        "output differs from the same maps given", what);
  sd_rectification_free (maps);
}

/* An engine that aligns gives what the pair gives through maps that move
 * the rows by the offset it measured, composed with the calibration's when
 * it has some; the offset is measured again when the parameters change;
 * a flat first pair is followed by a measured one. */
static void
check_engine (const SdSynthPair * pair)
{
  SdParams p;
  sd_params_init (&p);
  p.num_disparities = 32;
  SdError err;
  SdEngine *e = sd_engine_new ("cpu", 0, &p, &err);
  SdParams off = p;
  off.align_rows = false;
  SdEngine *plain = sd_engine_new ("cpu", 0, &off, &err);
  SD_CHECK (e && plain, "%s", err.message);
  if (!e || !plain)
    return;
  static uint8_t moved[W * H], flat[W * H];
  static uint16_t a[W * H], b[W * H];
  memset (flat, 90, sizeof (flat));

  /* a flat pair first: nothing measured, nothing moved */
  if (process (e, flat, flat, a))
    SD_CHECK (!sd_engine_row_offset (e).measured && !sd_engine_rows_moved (e),
        "a flat pair was measured");

  /* the right view 2.5 rows lower */
  move_rows (pair->right, moved, 2.5);
  if (process (e, pair->left, moved, a)) {
    const SdRowOffset r = sd_engine_row_offset (e);
    SD_CHECK (r.measured && fabs (r.offset - 2.5) <= MEASURE_TOLERANCE
        && sd_engine_rows_moved (e), "measured %+.3f, %s", r.offset,
        sd_engine_rows_moved (e) ? "moved" : "not moved");
    check_maps_given (e, plain, NULL, pair->left, moved, a, b, "moved");
  }

  /* a right camera of a longer focal length: scaled back, both ways */
  SD_CHECK (sd_engine_set_params (e, &p, &err) == SD_OK, "%s", err.message);
  static uint8_t scaled[W * H];
  camera_view (pair->right, scaled, 0.0, SCALE, 0.0);
  if (process (e, pair->left, scaled, a)) {
    const SdRowOffset r = sd_engine_row_offset (e);
    SD_CHECK (r.measured && fabs (r.scale - SCALE) <= SCALE_TOLERANCE
        && sd_engine_rows_moved (e), "scaled: measured %+.4f, %s", r.scale,
        sd_engine_rows_moved (e) ? "moved" : "not moved");
    check_maps_given (e, plain, NULL, pair->left, scaled, a, b, "scaled");
  }
  SD_CHECK (sd_engine_set_params (e, &p, &err) == SD_OK, "%s", err.message);

  /* a calibration whose maps read the right view a row lower: 1.5 rows
   * are left to measure, and the maps compose */
  SdRectification *calib = sd_rectification_realign_right (NULL, W, H, 1.0,
      0.0, 0.0);
  if (sd_engine_set_rectification (e, calib, &err) == SD_OK
      && process (e, pair->left, moved, a)) {
    const SdRowOffset r = sd_engine_row_offset (e);
    SD_CHECK (r.measured && fabs (r.offset - 1.5) <= MEASURE_TOLERANCE,
        "after a calibration of 1 row: measured %+.3f", r.offset);
    check_maps_given (e, plain, calib, pair->left, moved, a, b,
        "composed with a calibration");
  }
  sd_rectification_free (calib);
  sd_engine_set_rectification (e, NULL, &err);

  /* new parameters: the pair as rendered is measured anew, and left
   * alone */
  p.p1 = 30;
  SD_CHECK (sd_engine_set_params (e, &p, &err) == SD_OK, "%s", err.message);
  if (process (e, pair->left, pair->right, a)) {
    SD_CHECK (fabs (sd_engine_row_offset (e).offset) < MEASURE_TOLERANCE
        && !sd_engine_rows_moved (e), "a pair in line: %+.3f, %s",
        sd_engine_row_offset (e).offset, sd_engine_rows_moved (e) ?
        "moved" : "not moved");
    off.p1 = 30;
    SD_CHECK (sd_engine_set_params (plain, &off, &err) == SD_OK
        && sd_engine_set_rectification (plain, NULL, &err) == SD_OK, "%s",
        err.message);
    if (process (plain, pair->left, pair->right, b))
      SD_CHECK (!memcmp (a, b, sizeof (a)), "a pair in line is changed");
  }
  sd_engine_free (e);
  sd_engine_free (plain);
}

int
main (void)
{
  SdSynthPair pair;
  if (!sd_synth_render (&pair, W, H, scene, 3, 7)) {
    printf ("out of memory\n");
    return 1;
  }
  check_measure (&pair);
  check_turn (&pair);
  check_scale (&pair);
  check_maps ();
  check_engine (&pair);
  sd_synth_free (&pair);
  return sd_test_exit ("test-row-align");
}
