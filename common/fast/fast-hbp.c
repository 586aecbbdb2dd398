/* Fast hierarchical belief propagation: common/cpu/hbp.c's messages, bit
 * for bit, with vectors over pixels and rows over threads.
 *
 * The reference's message (sd_bp_message) runs over the disparities in
 * order: two min-convolution scans and a float sum whose order fixes its
 * rounding.  So the lanes here are pixels, each doing exactly the
 * reference's sequence of operations; vector min equals fminf since no
 * value is NaN or -0 (costs are >= +0 and x - x is +0).  The pixels of one
 * checkerboard colour are independent in an iteration, so a level keeps
 * each row's two colours apart: line (y, colour c, disparity k) holds the
 * pixels x = 2 i + ((y + c) & 1), i = 0, 1, ...  A pixel's neighbours above,
 * below, left and right are then lanes i, i, i - 1 + o and i + o (o its
 * offset) of the other colour's lines: plain vector loads.  Each line has a
 * zero before its first pixel and zeros after its last, and rows outside
 * the image read a block of zeros: an absent neighbour adds +0, which
 * leaves the reference's sums unchanged.  A pixel on the border does not
 * send towards it, as in the reference: those lanes are not stored. */
#include "sd-fast.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fast-vector.h"

static inline void
storef (float *p, vf v)
{
  memcpy (p, &v, sizeof (v));
}

typedef int32_t vfmask __attribute__((vector_size (FLANES * 4)));

static inline vf
vminf (vf a, vf b)
{
#if defined(__AVX512F__) && FLANES == 16
  return (vf) _mm512_min_ps ((__m512) a, (__m512) b);
#elif defined(__AVX__) && FLANES == 8
  return (vf) _mm256_min_ps ((__m256) a, (__m256) b);
#elif defined(__SSE2__)
  return (vf) _mm_min_ps ((__m128) a, (__m128) b);
#elif defined(__ARM_NEON)
  return vminq_f32 (a, b);
#else
  const vfmask a_less = (vfmask) (a < b);
  return (vf) (((vfmask) a & a_less) | ((vfmask) b & ~a_less));
#endif
}

static inline vf
splatf (float v)
{
  return (vf) { } + v;
}

/* One level in the split layout: a line is `stride` floats, its pixel i at
 * [1 + i]; line (y, c, k) starts at ((y * 2 + c) * D + k) * stride. */
typedef struct
{
  int width, height, D, stride;
  float *data, *up, *down, *left, *right;
} Level;

static int
line_stride (int width)
{
  /* the pixels of a colour, a zero on each side, and room for the last
   * vector's loads to stay inside the line */
  return (width + 1) / 2 + 2 + FLANES;
}

static size_t
level_floats (int width, int height, int D)
{
  return (size_t) height * 2 * D * line_stride (width);
}

size_t
SD_FAST (sd_fast_hbp_workspace_bytes) (const SdParams * p, int width,
    int height)
{
  const int D = p->num_disparities, n = sd_params_bp_levels (p, width,
      height);
  /* a block of zeros for any level's lines, then five arrays a level */
  size_t total = (size_t) D * line_stride (width) + FLANES;
  for (int l = 0; l < n; l++) {
    total += 5 * level_floats (width, height, D);
    width = (width + 1) / 2;
    height = (height + 1) / 2;
  }
  return total * sizeof (float);
}

static inline float *
line (const Level * lv, float *a, int y, int c, int k)
{
  return a + ((size_t) (y * 2 + c) * lv->D + k) * lv->stride + 1;
}

/* The pixels of colour c in row y (the first at x = (y + c) & 1). */
static inline int
colour_count (const Level * lv, int y, int c)
{
  return (lv->width - ((y + c) & 1) + 1) / 2;
}

/* Row y of array a, disparity k, in image order into row[0 .. width). */
static void
gather_row (const Level * lv, float *a, int y, int k, float *row)
{
  for (int c = 0; c < 2; c++) {
    const int o = (y + c) & 1, n = colour_count (lv, y, c);
    const float *src = line (lv, a, y, c, k);
    for (int i = 0; i < n; i++)
      row[2 * i + o] = src[i];
  }
}

/* The reverse: row[0 .. width) into row y of a, zeros around each line. */
static void
scatter_row (const Level * lv, float *a, int y, int k, const float *row)
{
  for (int c = 0; c < 2; c++) {
    const int o = (y + c) & 1, n = colour_count (lv, y, c);
    float *dst = line (lv, a, y, c, k);
    memset (dst - 1, 0, sizeof (float) * lv->stride);
    for (int i = 0; i < n; i++)
      dst[i] = row[2 * i + o];
  }
}

/* The four messages of sd_bp_message for FLANES pixels at once (their
 * scans interleave: four chains of dependent operations instead of one):
 * out[m * D + k] for m = up, down, left, right. */
enum
{ UP, DOWN, LEFT, RIGHT };

static inline void
messages (const Level * lv, const float *data, const float *below,
    const float *above, const float *right, const float *left, vf * out,
    float disc_trunc)
{
  const int D = lv->D;
  vf lowest[4];
  for (int m = 0; m < 4; m++)
    lowest[m] = splatf (INFINITY);
  for (int k = 0; k < D; k++) {
    const size_t at = (size_t) k * lv->stride;
    const vf d = loadf (data + at), b = loadf (below + at),
        a = loadf (above + at), r = loadf (right + at), l = loadf (left + at);
    /* each leaves out its receiver, in the reference's order */
    const vf db = d + b, dba = db + a;
    const vf h[4] = { (db + r) + l, ((d + a) + r) + l, dba + r, dba + l };
    for (int m = 0; m < 4; m++) {
      out[m * D + k] = h[m];
      lowest[m] = vminf (lowest[m], h[m]);
    }
  }
  const vf one = splatf (1.0f);
  for (int k = 1; k < D; k++)
    for (int m = 0; m < 4; m++)
      out[m * D + k] = vminf (out[m * D + k], out[m * D + k - 1] + one);
  for (int k = D - 2; k >= 0; k--)
    for (int m = 0; m < 4; m++)
      out[m * D + k] = vminf (out[m * D + k], out[m * D + k + 1] + one);
  vf sum[4] = { }, cap[4];
  for (int m = 0; m < 4; m++)
    cap[m] = lowest[m] + splatf (disc_trunc);
  for (int k = 0; k < D; k++)
    for (int m = 0; m < 4; m++) {
      out[m * D + k] = vminf (out[m * D + k], cap[m]);
      sum[m] += out[m * D + k];
    }
  for (int m = 0; m < 4; m++) {
    const vf mean = sum[m] / splatf ((float) D);
    for (int k = 0; k < D; k++)
      out[m * D + k] -= mean;
  }
}

/* out[k]'s lanes [from, to) into the lines of dst from pixel i. */
static inline void
store_lanes (const Level * lv, const vf * out, float *dst, int from, int to)
{
  if (from >= to)
    return;
  /* whole vectors, most of them, as stores: GCC makes the copy of a
   * variable length rep movsq in the AVX-512 build, slow to start */
  if (from == 0 && to == FLANES) {
    for (int k = 0; k < lv->D; k++)
      storef (dst + (size_t) k * lv->stride, out[k]);
    return;
  }
  for (int k = 0; k < lv->D; k++)
    memcpy (dst + (size_t) k * lv->stride + from, (const float *) &out[k] +
        from, sizeof (float) * (to - from));
}

/* The pixels of colour c in row y, FLANES from pixel i, send their
 * messages (sd_bp_update_pixel); out is room for 4 D vectors. */
static void
update_pixels (const Level * lv, const float *zeros, int y, int c, int i,
    vf * out, float disc_trunc)
{
  const int o = (y + c) & 1, oc = 1 - c, n = colour_count (lv, y, c);
  const int lanes = n - i < FLANES ? n - i : FLANES;
  const float *data = line (lv, lv->data, y, c, 0) + i;
  /* rows outside the image and, at the row's ends, the zeros around the
   * lines stand for absent neighbours */
  const float *below = y + 1 < lv->height ?
      line (lv, lv->up, y + 1, oc, 0) + i : zeros;
  const float *above = y > 0 ? line (lv, lv->down, y - 1, oc, 0) + i : zeros;
  const float *right = line (lv, lv->left, y, oc, 0) + i + o;
  const float *left = line (lv, lv->right, y, oc, 0) + i - 1 + o;
  messages (lv, data, below, above, right, left, out, disc_trunc);
  /* a pixel sends no message out of the image */
  const int D = lv->D;
  if (y > 0)
    store_lanes (lv, out + UP * D, line (lv, lv->up, y, c, 0) + i, 0, lanes);
  if (y + 1 < lv->height)
    store_lanes (lv, out + DOWN * D, line (lv, lv->down, y, c, 0) + i, 0,
        lanes);
  store_lanes (lv, out + LEFT * D, line (lv, lv->left, y, c, 0) + i,
      2 * i + o == 0 ? 1 : 0, lanes);
  store_lanes (lv, out + RIGHT * D, line (lv, lv->right, y, c, 0) + i, 0,
      2 * (i + lanes - 1) + o == lv->width - 1 ? lanes - 1 : lanes);
}

static void
lay_out_levels (const SdParams * p, float *ws, int width, int height,
    Level * levels, int n)
{
  const int D = p->num_disparities;
  for (int l = 0; l < n; l++) {
    const size_t size = level_floats (width, height, D);
    levels[l] = (Level) {
    width, height, D, line_stride (width), ws, ws + size, ws + 2 * size,
          ws + 3 * size, ws + 4 * size};
    ws += 5 * size;
    width = (width + 1) / 2;
    height = (height + 1) / 2;
  }
}

/* Level 0's data from the reference's layout (pixel after pixel, D costs
 * each). */
static void
split_data (const float *data, const Level * lv, int threads)
{
#pragma omp parallel for schedule(static) num_threads (threads)
  for (int y = 0; y < lv->height; y++) {
    float row[lv->width];
    for (int k = 0; k < lv->D; k++) {
      for (int x = 0; x < lv->width; x++)
        row[x] = data[((size_t) y * lv->width + x) * lv->D + k];
      scatter_row (lv, lv->data, y, k, row);
    }
  }
}

/* A coarse pixel's data: the sum of its (up to four) children in the
 * reference's order, (x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1). */
static void
sum_data_up (const Level * fine, const Level * coarse, int threads)
{
#pragma omp parallel for schedule(static) num_threads (threads)
  for (int y = 0; y < coarse->height; y++) {
    float row[coarse->width], top[fine->width], bottom[fine->width];
    const bool two_rows = 2 * y + 1 < fine->height;
    for (int k = 0; k < coarse->D; k++) {
      gather_row (fine, fine->data, 2 * y, k, top);
      if (two_rows)
        gather_row (fine, fine->data, 2 * y + 1, k, bottom);
      for (int x = 0; x < coarse->width; x++) {
        const bool two_columns = 2 * x + 1 < fine->width;
        float sum = 0;
        sum += top[2 * x];
        if (two_columns)
          sum += top[2 * x + 1];
        if (two_rows) {
          sum += bottom[2 * x];
          if (two_columns)
            sum += bottom[2 * x + 1];
        }
        row[x] = sum;
      }
      scatter_row (coarse, coarse->data, y, k, row);
    }
  }
}

/* Each fine pixel starts from the messages its parent sent.  Fine pixel
 * i of either colour, x = 2 i + o, has parent x / 2 = i in row y / 2: a
 * line is the parent row from its start. */
static void
copy_messages_down (const Level * coarse, const Level * fine, int threads)
{
#pragma omp parallel for schedule(static) num_threads (threads)
  for (int y = 0; y < fine->height; y++) {
    float parent[coarse->width];
    float *const from[] = { coarse->up, coarse->down, coarse->left,
      coarse->right
    };
    float *const to[] = { fine->up, fine->down, fine->left, fine->right };
    for (int a = 0; a < 4; a++) {
      for (int k = 0; k < fine->D; k++) {
        gather_row (coarse, from[a], y / 2, k, parent);
        for (int c = 0; c < 2; c++) {
          const int n = colour_count (fine, y, c);
          float *dst = line (fine, to[a], y, c, k);
          memset (dst - 1, 0, sizeof (float) * fine->stride);
          memcpy (dst, parent, sizeof (float) * n);
        }
      }
    }
  }
}

/* belief = data + the incoming messages (sd_bp_beliefs), into the
 * reference's layout. */
static void
beliefs (const Level * lv, float *belief, int threads)
{
#pragma omp parallel for schedule(static) num_threads (threads)
  for (int y = 0; y < lv->height; y++) {
    float row[lv->width], in[lv->width];
    for (int k = 0; k < lv->D; k++) {
      gather_row (lv, lv->data, y, k, row);
      if (y + 1 < lv->height) {
        gather_row (lv, lv->up, y + 1, k, in);
        for (int x = 0; x < lv->width; x++)
          row[x] += in[x];
      }
      if (y > 0) {
        gather_row (lv, lv->down, y - 1, k, in);
        for (int x = 0; x < lv->width; x++)
          row[x] += in[x];
      }
      gather_row (lv, lv->left, y, k, in);
      for (int x = 0; x + 1 < lv->width; x++)
        row[x] += in[x + 1];
      gather_row (lv, lv->right, y, k, in);
      for (int x = 1; x < lv->width; x++)
        row[x] += in[x - 1];
      for (int x = 0; x < lv->width; x++)
        belief[((size_t) y * lv->width + x) * lv->D + k] = row[x];
    }
  }
}

void
SD_FAST (sd_fast_hbp) (const SdParams * p, const float *data, float *belief,
    void *workspace, int width, int height)
{
  const int n = sd_params_bp_levels (p, width, height);
  const int threads = sd_fast_threads (p), D = p->num_disparities;
  const float disc_trunc = sd_params_bp_disc_trunc (p);
  Level levels[SD_MAX_BP_LEVELS];
  float *zeros = workspace;
  const size_t zero_floats = (size_t) D * line_stride (width) + FLANES;
  memset (zeros, 0, sizeof (float) * zero_floats);
  lay_out_levels (p, zeros + zero_floats, width, height, levels, n);

  split_data (data, &levels[0], threads);
  for (int l = 1; l < n; l++)
    sum_data_up (&levels[l - 1], &levels[l], threads);

  for (int l = n - 1; l >= 0; l--) {
    const Level *lv = &levels[l];
    if (l == n - 1)
      memset (lv->up, 0, sizeof (float) * 4 * level_floats (lv->width,
              lv->height, D));
    else
      copy_messages_down (&levels[l + 1], lv, threads);
    /* checkerboard: in iteration t the pixels of colour t & 1 send,
     * reading only what the other colour sent before */
    for (int t = 0; t < p->iterations; t++) {
      const int c = t & 1;
#pragma omp parallel for schedule(static) num_threads (threads)
      for (int y = 0; y < lv->height; y++) {
        vf out[4 * D];
        for (int i = 0; i < colour_count (lv, y, c); i += FLANES)
          update_pixels (lv, zeros, y, c, i, out, disc_trunc);
      }
    }
  }
  beliefs (&levels[0], belief, threads);
}
