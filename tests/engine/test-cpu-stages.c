/* Each CPU stage against small cases worked out by hand (the numbers in
 * the comments are the working). */
#include <stdlib.h>
#include <string.h>

#include "cpu/sd-cpu.h"
#include "sd-edge-fill.h"
#include "sd-speckle.h"
#include "sd-synth.h"
#include "sd-test.h"

#define INV SD_DISP_INVALID

static void
test_median (void)
{
  /* a spike in a flat 3x3 image disappears everywhere */
  const uint8_t spike[9] = { 10, 10, 10, 10, 200, 10, 10, 10, 10 };
  uint8_t out[9];
  sd_cpu_median_filter (spike, out, 3, 3, 3);
  for (int i = 0; i < 9; i++)
    SD_CHECK_INT (out[i], 10);
  /* one row: the window repeats the row three times and clamps at the
   * ends: x=0 sees {5,5,1}, x=1 {5,1,4}, x=2 {1,4,2}, x=3 {4,2,3},
   * x=4 {2,3,3} */
  const uint8_t row[5] = { 5, 1, 4, 2, 3 };
  const uint8_t expect[5] = { 5, 4, 2, 3, 3 };
  sd_cpu_median_filter (row, out, 5, 1, 3);
  SD_CHECK (memcmp (out, expect, 5) == 0, "median3 of a row: %d %d %d %d %d",
      out[0], out[1], out[2], out[3], out[4]);
  /* 5x5: x=2 of the same row sees {5,1,4,2,3} five times: median 3 */
  sd_cpu_median_filter (row, out, 5, 1, 5);
  SD_CHECK_INT (out[2], 3);
}

static void
test_rank (void)
{
  /* 5x5 rank on a one-row ramp: x=0 sees {10,10,10,20,30} (none darker),
   * the others see two darker values in each of the five rows */
  const uint8_t ramp[5] = { 10, 20, 30, 40, 50 };
  const uint8_t expect[5] = { 0, 10, 10, 10, 10 };
  uint8_t out[5];
  sd_cpu_rank_filter (ramp, out, 5, 1, 5);
  SD_CHECK (memcmp (out, expect, 5) == 0, "rank5: %d %d %d %d %d", out[0],
      out[1], out[2], out[3], out[4]);
  /* the largest rank of a 15 window is 224 and fits in a byte */
  uint8_t big[15 * 15];
  for (int i = 0; i < 15 * 15; i++)
    big[i] = 0;
  big[7 * 15 + 7] = 255;
  uint8_t rank[15 * 15];
  sd_cpu_rank_filter (big, rank, 15, 15, 15);
  SD_CHECK_INT (rank[7 * 15 + 7], 224);
}

static void
test_match_brightness (void)
{
  /* equal views, every level once: for right level r the middle rank is
   * r + 1/2 of 256, reached first at left level r: the identity */
  uint8_t ramp[256], same[256];
  for (int i = 0; i < 256; i++)
    ramp[i] = same[i] = (uint8_t) i;
  uint8_t map[SD_BRIGHTNESS_LEVELS];
  sd_cpu_brightness_map (ramp, same, 16, 16, map);
  sd_cpu_apply_brightness_map (map, same, 256);
  SD_CHECK (memcmp (ramp, same, 256) == 0, "equal views changed");
  /* left {10,10,20,20}, right {50,50,50,90}: level 50's middle rank is
   * 1.5 of 4, first reached at 10 (2 of 4); 90's is 3.5, reached at 20 */
  const uint8_t left[4] = { 10, 10, 20, 20 };
  uint8_t right[4] = { 50, 50, 50, 90 };
  const uint8_t expect[4] = { 10, 10, 10, 20 };
  sd_cpu_brightness_map (left, right, 2, 2, map);
  sd_cpu_apply_brightness_map (map, right, 4);
  SD_CHECK (memcmp (right, expect, 4) == 0, "small case: %d %d %d %d",
      right[0], right[1], right[2], right[3]);
  /* the right view a darker copy (3/4 of the left): each of its levels
   * holds the pixels of one or two neighbouring left levels, and their
   * middle rank falls among them, so every pixel comes back within 1 */
  enum { W = 64, H = 48 };
  uint8_t noise[W * H], dark[W * H];
  sd_synth_noise (noise, W * H, 7);
  for (int i = 0; i < W * H; i++)
    dark[i] = (uint8_t) (noise[i] * 3 / 4);
  sd_cpu_brightness_map (noise, dark, W, H, map);
  sd_cpu_apply_brightness_map (map, dark, W * H);
  int worst = 0;
  for (int i = 0; i < W * H; i++) {
    const int d = abs (dark[i] - noise[i]);
    worst = d > worst ? d : worst;
  }
  SD_CHECK (worst <= 1, "a darker copy came back %d levels off", worst);
}

static void
test_census (void)
{
  /* 5x5 image holding its raster index: at the centre (12), the twelve
   * neighbours before it are darker, the twelve after it brighter */
  uint8_t img[9 * 7];
  for (int i = 0; i < 25; i++)
    img[i] = (uint8_t) i;
  uint64_t sig[25];
  sd_cpu_census (img, sig, 5, 5, SD_CENSUS_5X5);
  SD_CHECK (sig[12] == 0xFFF000u, "census5x5 centre = %llx",
      (unsigned long long) sig[12]);
  /* 9x7 and its centre-symmetric variant on a 9x7 raster index: every
   * first-half pixel is darker than the centre (31) and than its mirror */
  for (int i = 0; i < 63; i++)
    img[i] = (uint8_t) i;
  uint64_t sig97[63];
  sd_cpu_census (img, sig97, 9, 7, SD_CENSUS_9X7);
  SD_CHECK (sig97[31] == 0x3FFFFFFF80000000ull, "census9x7 centre = %llx",
      (unsigned long long) sig97[31]);
  sd_cpu_census (img, sig97, 9, 7, SD_CENSUS_CS9X7);
  SD_CHECK (sig97[31] == 0x7FFFFFFFu, "cs9x7 centre = %llx",
      (unsigned long long) sig97[31]);
  /* a flat image has no darker neighbours anywhere, borders included */
  memset (img, 77, sizeof (img));
  sd_cpu_census (img, sig97, 9, 7, SD_CENSUS_9X7);
  for (int i = 0; i < 63; i++)
    SD_CHECK (sig97[i] == 0, "flat census at %d = %llx", i,
        (unsigned long long) sig97[i]);
}

static void
test_cost (void)
{
  SdParams p;
  sd_params_init (&p);
  SD_CHECK_INT (sd_cost_max (&p), 62);
  p.census_window = SD_CENSUS_5X5;
  SD_CHECK_INT (sd_cost_max (&p), 24);
  p.census_window = SD_CENSUS_CS9X7;
  SD_CHECK_INT (sd_cost_max (&p), 31);
  /* AD: left [10 50 30], right [50 30 10], disparities 0 and 1:
   * x0: |10-50|=40, and d=1 reads the edge pixel right[0]: 40;
   * x1: |50-30|=20, |50-50|=0; x2: 20, 0 */
  p.cost = SD_COST_AD;
  p.num_disparities = 2;
  const uint8_t left[3] = { 10, 50, 30 }, right[3] = { 50, 30, 10 };
  const uint8_t expect[6] = { 40, 40, 20, 0, 20, 0 };
  uint8_t cost[6];
  sd_cpu_cost_volume (&p, left, right, NULL, NULL, cost, 3, 1);
  SD_CHECK (memcmp (cost, expect, 6) == 0, "AD volume %d %d %d %d %d %d",
      cost[0], cost[1], cost[2], cost[3], cost[4], cost[5]);
  /* min-disparity shifts the range to d = 1, 2 (right[0] = 50 for all
   * that point outside): x0: 40, 40; x1: |50-50|=0, 0; x2: 0, |30-50|=20 */
  p.min_disparity = 1;
  const uint8_t expect_shifted[6] = { 40, 40, 0, 0, 0, 20 };
  sd_cpu_cost_volume (&p, left, right, NULL, NULL, cost, 3, 1);
  SD_CHECK (memcmp (cost, expect_shifted, 6) == 0,
      "shifted AD volume %d %d %d %d %d %d", cost[0], cost[1], cost[2],
      cost[3], cost[4], cost[5]);
}

static void
test_sgm (void)
{
  /* one row of three pixels, three disparities, P1 = 1, P2 = 3, 4 paths.
   * Left to right: L0 = C0 = [0 5 9]; L1 = [6 2 7]; L2 = [3 8 1].
   * Right to left: R2 = C2 = [2 8 0]; R1 = [8 2 4]; R0 = [1 5 10].
   * The vertical paths start at every pixel of a one-row image: C each.
   * S = L + R + 2C. */
  SdParams p;
  sd_params_init (&p);
  p.num_disparities = 3;
  p.paths = 4;
  p.p1 = 1;
  p.p2 = 3;
  const uint8_t cost[9] = { 0, 5, 9, 6, 1, 4, 2, 8, 0 };
  const uint8_t guide[3] = { 0, 0, 0 };
  const uint16_t expect[9] = { 1, 20, 37, 26, 6, 19, 9, 32, 1 };
  uint16_t sum[9], scratch[2 * 3 * 3];
  sd_cpu_sgm (&p, cost, guide, sum, scratch, 3, 1);
  for (int i = 0; i < 9; i++)
    SD_CHECK (sum[i] == expect[i], "S[%d] = %d, expected %d", i, sum[i],
        expect[i]);

  /* adaptive P2 with an intensity step of 5 gives P2 = max(P1, 3 * 8 /
   * (8 + 5)) = 1: L1 = C1 + min(L0[k], L0[k+-1] + 1, 0 + 1) = [6 2 5] - so
   * only the left-to-right path changes at x1: S1 = [6 2 5] + [8 2 4] +
   * [12 2 8].  (R1 is unchanged: its step from x2 to x1 is 0, which keeps
   * P2 = 3 * 8 / 8.) */
  p.p2_adaptive = SD_P2_ADAPTIVE_ON;
  const uint8_t steps[3] = { 10, 15, 15 };
  sd_cpu_sgm (&p, cost, steps, sum, scratch, 3, 1);
  SD_CHECK (sum[3] == 26 && sum[4] == 6 && sum[5] == 17,
      "adaptive S1 = %d %d %d, expected 26 6 17", sum[3], sum[4], sum[5]);
  /* a step of 3: P2 = 24 / 11 = 2, so L1[2] = 4 + min(9, 5 + 1, 0 + 2) =
   * 6 and S1[2] = 6 + 4 + 8 */
  const uint8_t small_steps[3] = { 10, 13, 13 };
  sd_cpu_sgm (&p, cost, small_steps, sum, scratch, 3, 1);
  SD_CHECK (sum[3] == 26 && sum[4] == 6 && sum[5] == 18,
      "adaptive S1 = %d %d %d, expected 26 6 18", sum[3], sum[4], sum[5]);
}

static void
test_wta (void)
{
  SdParams p;
  sd_params_init (&p);
  p.num_disparities = 5;
  p.uniqueness = 0;
  /* best k = 2; parabola: denom = 12 + 16 - 20 = 8,
   * offset = (12 - 16) * 16 / (2 * 8) = -4: 2 * 16 - 4 = 28 */
  const uint16_t s[5] = { 20, 12, 10, 16, 30 };
  int16_t d;
  sd_cpu_wta (&p, s, &d, NULL, 1, 1);
  SD_CHECK_INT (d, 28);
  p.subpixel = false;
  sd_cpu_wta (&p, s, &d, NULL, 1, 1);
  SD_CHECK_INT (d, 32);
  /* uniqueness 50: 20 * 50 = 1000 is not below 10 * 100: unique;
   * 51: 20 * 49 = 980 < 1000: another minimum too close */
  p.uniqueness = 50;
  sd_cpu_wta (&p, s, &d, NULL, 1, 1);
  SD_CHECK_INT (d, 32);
  p.uniqueness = 51;
  sd_cpu_wta (&p, s, &d, NULL, 1, 1);
  SD_CHECK_INT (d, INV);
  /* rounding: (10 - 3) * 16 / (2 * 13) = 4.31 -> 4: 16 + 4 = 20 */
  p.uniqueness = 0;
  p.subpixel = true;
  p.num_disparities = 3;
  const uint16_t r[3] = { 10, 0, 3 };
  sd_cpu_wta (&p, r, &d, NULL, 1, 1);
  SD_CHECK_INT (d, 20);
  /* ties go to the smaller disparity; no parabola at the range's ends */
  const uint16_t tie[3] = { 4, 9, 4 };
  sd_cpu_wta (&p, tie, &d, NULL, 1, 1);
  SD_CHECK_INT (d, 0);
  /* pixels left of min-disparity have no candidate: invalid */
  p.min_disparity = 2;
  int16_t row[3];
  const uint16_t s3[9] = { 1, 5, 9, 1, 5, 9, 9, 1, 9 };
  sd_cpu_wta (&p, s3, row, NULL, 3, 1);
  SD_CHECK (row[0] == INV && row[1] == INV, "left of min-disparity: %d %d",
      row[0], row[1]);
  /* x2: best k = 1 -> d = 3; parabola (9 - 9) = 0: 48 */
  SD_CHECK_INT (row[2], 48);
}

static void
test_right_and_lr (void)
{
  /* S(x, k): x0 [5 9], x1 [7 2], x2 [1 6].  Right pixel xr takes the best
   * of S(xr + k, k): xr0: 5 vs 2 -> 1; xr1: 7 vs 6 -> 1; xr2: only 1 -> 0 */
  SdParams p;
  sd_params_init (&p);
  p.num_disparities = 2;
  const uint16_t s[6] = { 5, 9, 7, 2, 1, 6 };
  int16_t right[3];
  sd_cpu_right_disparity (&p, s, right, 3, 1);
  SD_CHECK (right[0] == 1 && right[1] == 1 && right[2] == 0,
      "right disparities %d %d %d", right[0], right[1], right[2]);

  /* left: x0 d=1 (points outside), x1 d=1 (xr0 says 1), x2 d=2 rounded
   * from 1.5 (xr0 says 1: off by one) */
  p.lr_check = 0;
  int16_t left[3] = { 16, 16, 24 };
  sd_cpu_lr_check (&p, left, right, 3, 1);
  SD_CHECK (left[0] == INV && left[1] == 16 && left[2] == INV,
      "lr-check 0: %d %d %d", left[0], left[1], left[2]);
  p.lr_check = 1;
  int16_t left2[3] = { 16, 16, 24 };
  sd_cpu_lr_check (&p, left2, right, 3, 1);
  SD_CHECK (left2[0] == INV && left2[1] == 16 && left2[2] == 24,
      "lr-check 1: %d %d %d", left2[0], left2[1], left2[2]);
}

static void
test_median_disparity (void)
{
  const int16_t a[9] = { 16, 32, 48, 64, 80, 96, 112, 128, 144 };
  int16_t out[9];
  sd_cpu_median_disparity (a, out, 3, 3);
  SD_CHECK_INT (out[4], 80);
  /* invalid neighbours are left out: {48, 16, 32} -> 32; an invalid
   * centre stays invalid */
  const int16_t b[9] = { INV, INV, 48, INV, 16, 32, INV, INV, INV };
  sd_cpu_median_disparity (b, out, 3, 3);
  SD_CHECK_INT (out[4], 32);
  SD_CHECK_INT (out[0], INV);
  /* even counts take the lower middle value */
  const int16_t c[4] = { 16, 64, INV, 32 };
  const int16_t expect[4] = { 16, 16, INV, 32 };
  sd_cpu_median_disparity (c, out, 4, 1);
  SD_CHECK (memcmp (out, expect, sizeof (expect)) == 0,
      "row median %d %d %d %d", out[0], out[1], out[2], out[3]);
}

/* The guided median (sd-guided-median.h) moves a disparity edge onto the
 * image's edge, leaves holes alone and takes the lower weighted median. */
static void
test_guided_median (void)
{
  /* an object (luma 50) left of x = 10 on a background (luma 200), its
   * disparity (160) fattened two pixels onto the background (80) */
  enum
  { W = 20, H = 13 };
  int16_t disp[H][W], out[H][W];
  uint8_t luma[H][W];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      luma[y][x] = x < 10 ? 50 : 200;
      disp[y][x] = x < 12 ? 160 : 80;
    }
  disp[6][5] = INV;
  disp[6][15] = 0;
  sd_cpu_guided_median (&disp[0][0], &luma[0][0], &out[0][0], W, H);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const int want = y == 6 && x == 5 ? INV : y == 6 && x == 15 ? 0 :
          x < 10 ? 160 : 80;
      SD_CHECK (out[y][x] == want, "guided median at (%d, %d): %d, not %d",
          x, y, out[y][x], want);
    }
  /* two samples of equal weight: the lower one; a sample whose luma is 16
   * off weighs a quarter ((32 - 16)^2 of 32^2) */
  const int16_t pair[4] = { 64, 48, 48, 32 };
  const uint8_t flat[4] = { 100, 100, 100, 100 };
  const uint8_t step[4] = { 100, 100, 100, 116 };
  int16_t got[4];
  sd_cpu_guided_median (pair, flat, got, 4, 1);
  SD_CHECK (got[0] == 32 && got[3] == 32, "equal weights: %d %d", got[0],
      got[3]);
  sd_cpu_guided_median (pair, step, got, 4, 1);
  SD_CHECK (got[0] == 64 && got[3] == 32, "unequal weights: %d %d", got[0],
      got[3]);
}

/* A row of W pixels: LEAD holes, then 16 d = base + slope (x - LEAD). */
#define RAMP_LEAD 10
#define RAMP_W (RAMP_LEAD + SD_EDGE_FILL_FIT + 6)
static void
ramp (int16_t * row, int base, int slope)
{
  for (int x = 0; x < RAMP_W; x++)
    row[x] = x < RAMP_LEAD ? INV : base + slope * (x - RAMP_LEAD);
}

/* The holes before a row's first valid pixel continue the line of the
 * next SD_EDGE_FILL_FIT valid pixels when all lie within 1 px (16) of it,
 * clamped to the output's range; otherwise they take that pixel's value,
 * as any run with one bound. */
static void
test_fill_row_start (void)
{
  int16_t row[RAMP_W];
  /* a quarter pixel a column, a hole inside the line (background-filled) */
  ramp (row, 400, 4);
  row[20] = INV;
  sd_cpu_fill_holes (row, RAMP_W, 1, 1, INT16_MAX);
  for (int x = 0; x < RAMP_LEAD; x++)
    SD_CHECK_INT (row[x], 400 + 4 * (x - RAMP_LEAD));
  SD_CHECK_INT (row[20], 436);
  /* within 1 px of the line: still continued */
  ramp (row, 400, 4);
  row[15] += 8;
  sd_cpu_fill_holes (row, RAMP_W, 1, 1, INT16_MAX);
  SD_CHECK (row[0] > 350 && row[0] < 370, "near line: row[0] %d", row[0]);
  /* one pixel more than 1 px off: the constant */
  ramp (row, 400, 4);
  row[15] += 40;
  sd_cpu_fill_holes (row, RAMP_W, 1, 1, INT16_MAX);
  for (int x = 0; x < RAMP_LEAD; x++)
    SD_CHECK_INT (row[x], 400);
  /* clamped at both ends of the range */
  ramp (row, 200, -3);
  sd_cpu_fill_holes (row, RAMP_W, 1, 1, 220);
  SD_CHECK_INT (row[0], 220);
  SD_CHECK_INT (row[RAMP_LEAD - 1], 203);
  ramp (row, 20, 3);
  sd_cpu_fill_holes (row, RAMP_W, 1, 8, INT16_MAX);
  SD_CHECK_INT (row[0], 8);
  SD_CHECK_INT (row[RAMP_LEAD - 1], 17);
  /* fewer than SD_EDGE_FILL_FIT valid pixels: the constant */
  ramp (row, 400, 4);
  for (int x = RAMP_LEAD + SD_EDGE_FILL_FIT - 1; x < RAMP_W; x++)
    row[x] = INV;
  sd_cpu_fill_holes (row, RAMP_W, 1, 1, INT16_MAX);
  SD_CHECK_INT (row[0], 400);
}

static void
test_fill_and_output (void)
{
  int16_t row[9] = { INV, INV, 48, INV, INV, 80, INV, 32, INV };
  const int16_t expect[9] = { 48, 48, 48, 48, 48, 80, 32, 32, 32 };
  sd_cpu_fill_holes (row, 9, 1, 1, INT16_MAX);
  SD_CHECK (memcmp (row, expect, sizeof (expect)) == 0, "filled row");
  int16_t empty[4] = { INV, INV, INV, INV };
  sd_cpu_fill_holes (empty, 4, 1, 1, INT16_MAX);
  for (int i = 0; i < 4; i++)
    SD_CHECK_INT (empty[i], INV);
  /* a disparity of 0 reads as a hole: it is filled, and fills nothing
   * (else its run would be written as 0, a hole again) */
  int16_t zeros[7] = { 0, INV, INV, 64, 0, INV, 16 };
  const int16_t zeros_filled[7] = { 64, 64, 64, 64, 16, 16, 16 };
  sd_cpu_fill_holes (zeros, 7, 1, 1, INT16_MAX);
  SD_CHECK (memcmp (zeros, zeros_filled, sizeof (zeros)) == 0,
      "zeros filled %d %d %d %d %d %d %d", zeros[0], zeros[1], zeros[2],
      zeros[3], zeros[4], zeros[5], zeros[6]);
  int16_t only_zeros[3] = { 0, INV, 0 };
  sd_cpu_fill_holes (only_zeros, 3, 1, 1, INT16_MAX);
  for (int i = 0; i < 3; i++)
    SD_CHECK_INT (only_zeros[i], INV);

  /* output: invalid -> 0, rows honour the output stride */
  const int16_t disp[4] = { INV, 17, 4080, 0 };
  uint16_t out[2][3];
  SdParams p;
  sd_params_init (&p);
  memset (out, 0xab, sizeof (out));
  sd_cpu_to_output (&p, disp, &out[0][0], sizeof (out[0]), 2, 2);
  SD_CHECK (out[0][0] == 0 && out[0][1] == 17 && out[1][0] == 4080
      && out[1][1] == 0, "output %d %d %d %d", out[0][0], out[0][1],
      out[1][0], out[1][1]);
  SD_CHECK_INT (out[0][2], 0xabab);

  /* depth: f * B / d with d = disp / 16.  f 700 px, B 120 mm: scale
   * 700 * 120 * 16 = 1344000; disp 17 (d 1.0625) -> 1344000 / 17 =
   * 79058.8 -> farther than 65535; 4080 (d 255) -> 329.41 -> 329; d = 0 ->
   * infinitely far -> 65535; invalid stays 0 */
  p.output = SD_OUTPUT_DEPTH;
  p.focal_length = 700;
  p.baseline = 120;
  sd_cpu_to_output (&p, disp, &out[0][0], sizeof (out[0]), 2, 2);
  SD_CHECK (out[0][0] == 0 && out[0][1] == 65535 && out[1][0] == 329
      && out[1][1] == 65535, "depth %d %d %d %d", out[0][0], out[0][1],
      out[1][0], out[1][1]);
  /* rounding: f 10 px, B 25.5 mm: scale 4080; disp 48 -> 85 exactly, disp
   * 4080 -> 1; f 0.5, B 1: scale 8, disp 4080 -> 0.002 -> at least 1 */
  const int16_t near[4] = { 48, 4080, 4080, 2720 };
  p.focal_length = 10;
  p.baseline = 25.5f;
  sd_cpu_to_output (&p, near, &out[0][0], sizeof (out[0]), 2, 2);
  SD_CHECK (out[0][0] == 85 && out[0][1] == 1 && out[1][0] == 1
      && out[1][1] == 2, "depth %d %d %d %d", out[0][0], out[0][1],
      out[1][0], out[1][1]);
  p.focal_length = 0.5f;
  p.baseline = 1;
  sd_cpu_to_output (&p, near, &out[0][0], sizeof (out[0]), 2, 2);
  SD_CHECK_INT (out[0][1], 1);
}

/* Speckles: 200 x 100 pixels make segments of fewer than 5 pixels
 * speckles (sd-speckle.h).  On a background of 160 (10 px): 4 pixels of
 * 480 go, 5 in a line stay, 4 of 176 (within 1 px of the background) join
 * it, 4 of 177 (one step further) go, two squares of 4 that touch only at
 * a corner go (4-connected), and 4 pixels of 0 are a hole, not a segment.
 * A removed pixel's confidence becomes 0. */
static void
test_speckles (void)
{
  const int w = 200, h = 100;
  SD_CHECK_INT (sd_speckle_min_size (w, h), 5);
  static int16_t disp[100][200], expect[100][200];
  static uint8_t conf[100][200], seen[100 * 200];
  static int32_t queue[100 * 200];
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      disp[y][x] = 160;
  const struct
  {
    int x, y, cw, ch, v;
    bool removed;
  } patches[] = {
    {10, 10, 2, 2, 480, true}, {30, 10, 5, 1, 480, false},
    {50, 10, 2, 2, 176, false}, {70, 10, 2, 2, 177, true},
    {90, 10, 2, 2, 480, true}, {92, 12, 2, 2, 480, true},
    {110, 10, 2, 2, 0, false},
  };
  memcpy (expect, disp, sizeof (disp));
  for (size_t i = 0; i < sizeof (patches) / sizeof (patches[0]); i++)
    for (int y = patches[i].y; y < patches[i].y + patches[i].ch; y++)
      for (int x = patches[i].x; x < patches[i].x + patches[i].cw; x++) {
        disp[y][x] = (int16_t) patches[i].v;
        expect[y][x] = patches[i].removed ? INV : (int16_t) patches[i].v;
      }
  memset (conf, 200, sizeof (conf));
  sd_cpu_remove_speckles (&disp[0][0], &conf[0][0], w, w, h, seen, queue);
  int wrong = 0, conf_wrong = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      wrong += disp[y][x] != expect[y][x];
      conf_wrong += conf[y][x] != (expect[y][x] == INV ? 0 : 200);
    }
  SD_CHECK (wrong == 0 && conf_wrong == 0, "%d pixels and %d confidences "
      "not as expected", wrong, conf_wrong);
}

int
main (void)
{
  test_median ();
  test_rank ();
  test_match_brightness ();
  test_census ();
  test_cost ();
  test_sgm ();
  test_wta ();
  test_right_and_lr ();
  test_median_disparity ();
  test_guided_median ();
  test_fill_row_start ();
  test_fill_and_output ();
  test_speckles ();
  return sd_test_exit ("test-cpu-stages");
}
