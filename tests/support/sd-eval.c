#include "sd-eval.h"
#include "cpu/sd-cpu.h"
#include "sd-output.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The columns of sets.tsv we use, from its header line. */
typedef struct
{
  int name, left, right, gt, decode, ndisp;
} SetColumns;

/* Splits a tab-separated line in place; returns the column count. */
static int
split_tabs (char *line, char **cols, int max)
{
  line[strcspn (line, "\r\n")] = '\0';
  int n = 0;
  for (char *p = line; n < max;) {
    cols[n++] = p;
    char *tab = strchr (p, '\t');
    if (!tab)
      break;
    *tab = '\0';
    p = tab + 1;
  }
  return n;
}

static bool
find_columns (char **cols, int n, SetColumns * c)
{
  *c = (SetColumns) {
  -1, -1, -1, -1, -1, -1};
  for (int i = 0; i < n; i++) {
    int *col = !strcmp (cols[i], "set") ? &c->name :
        !strcmp (cols[i], "left") ? &c->left :
        !strcmp (cols[i], "right") ? &c->right :
        !strcmp (cols[i], "gt") ? &c->gt :
        !strcmp (cols[i], "gt_decode") ? &c->decode :
        !strcmp (cols[i], "ndisp_x16") ? &c->ndisp : NULL;
    if (col)
      *col = i;
  }
  return c->name == 0 && c->left >= 0 && c->right >= 0 && c->gt >= 0
      && c->decode >= 0 && c->ndisp >= 0;
}

/* "uint8/<divisor>" or "uint16/<divisor>": the stored sample's depth in
 * bits and what it is divided by; an empty column means no ground truth. */
static bool
parse_decode (const char *text, int *bits, double *divisor)
{
  char *end;
  if (!strncmp (text, "uint8/", 6))
    *bits = 8;
  else if (!strncmp (text, "uint16/", 7))
    *bits = 16;
  else
    return false;
  *divisor = strtod (strchr (text, '/') + 1, &end);
  return *end == '\0' && *divisor > 0;
}

typedef struct
{
  char left[256], right[256], gt[256];
  int gt_bits;                  /* 0: no ground truth */
  double gt_divisor;
  int ndisp;
} SetRow;

/* Finds the row of sets.tsv for set name. */
static bool
read_sets_row (const char *tsv, const char *name, SetRow * row, char *msg,
    size_t size)
{
  FILE *f = fopen (tsv, "r");
  if (!f) {
    snprintf (msg, size, "cannot open the set index %s", tsv);
    return false;
  }
  char line[2048], *cols[32];
  SetColumns c;
  bool header_ok = fgets (line, sizeof (line), f)
      && find_columns (cols, split_tabs (line, cols, 32), &c);
  bool found = false, ok = false;
  while (header_ok && !found && fgets (line, sizeof (line), f)) {
    const int n = split_tabs (line, cols, 32);
    if (strcmp (cols[0], name) != 0)
      continue;
    found = true;
    if (n <= c.left || n <= c.right || n <= c.gt || n <= c.decode
        || n <= c.ndisp)
      break;
    snprintf (row->left, sizeof (row->left), "%s", cols[c.left]);
    snprintf (row->right, sizeof (row->right), "%s", cols[c.right]);
    snprintf (row->gt, sizeof (row->gt), "%s", cols[c.gt]);
    row->ndisp = atoi (cols[c.ndisp]);
    row->gt_bits = 0;
    ok = row->ndisp > 0 && (!row->gt[0] || parse_decode (cols[c.decode],
            &row->gt_bits, &row->gt_divisor));
  }
  fclose (f);
  if (!header_ok)
    snprintf (msg, size, "%s: the header lacks the set, left, right, gt, "
        "gt_decode or ndisp_x16 column", tsv);
  else if (!found)
    snprintf (msg, size, "set %s is not in %s", name, tsv);
  else if (!ok)
    snprintf (msg, size, "%s: the row of set %s is malformed", tsv, name);
  return ok;
}

int
sd_stereo_set_names (const char *data_dir, char names[][64], int max)
{
  char tsv[1024], line[2048], *cols[32];
  snprintf (tsv, sizeof (tsv), "%s/sets.tsv", data_dir);
  FILE *f = fopen (tsv, "r");
  if (!f)
    return -1;
  int n = 0;
  SetColumns c;
  if (fgets (line, sizeof (line), f)
      && find_columns (cols, split_tabs (line, cols, 32), &c))
    while (n < max && fgets (line, sizeof (line), f))
      if (split_tabs (line, cols, 32) > 1 && cols[0][0])
        snprintf (names[n++], 64, "%s", cols[0]);
  fclose (f);
  return n;
}

/* Decodes the ground-truth image g as row says into set->gt. */
static bool
decode_gt (SdStereoSet * set, const SdImage * g, const SetRow * row,
    const char *path, char *msg, size_t size)
{
  const int w = g->plane.width, h = g->plane.height;
  const SdPixelFormat want = row->gt_bits == 16 ? SD_PIXEL_GRAY16 :
      SD_PIXEL_GRAY8;
  if (g->plane.format != want) {
    snprintf (msg, size, "%s: ground truth is not %d-bit grey, as "
        "gt_decode says", path, row->gt_bits);
    return false;
  }
  if (w != set->left->plane.width || h != set->left->plane.height) {
    snprintf (msg, size, "%s: ground truth is %dx%d, the images %dx%d",
        path, w, h, set->left->plane.width, set->left->plane.height);
    return false;
  }
  set->gt = malloc (sizeof (float) * w * h);
  if (!set->gt) {
    snprintf (msg, size, "out of memory");
    return false;
  }
  for (int y = 0; y < h; y++) {
    const uint8_t *r = sd_plane_row (&g->plane, y);
    for (int x = 0; x < w; x++)
      set->gt[(size_t) y * w + x] = (float) ((row->gt_bits == 16 ?
              ((const uint16_t *) r)[x] : r[x]) / row->gt_divisor);
  }
  return true;
}

bool
sd_stereo_set_load (SdStereoSet * set, const char *dir, char *msg,
    size_t size)
{
  memset (set, 0, sizeof (*set));
  char path[1024], tsv[1024];
  /* the set's name is the last component of dir */
  char trimmed[1024];
  snprintf (trimmed, sizeof (trimmed), "%s", dir);
  size_t len = strlen (trimmed);
  while (len > 1 && trimmed[len - 1] == '/')
    trimmed[--len] = '\0';
  const char *slash = strrchr (trimmed, '/');
  snprintf (set->name, sizeof (set->name), "%s", slash ? slash + 1 : trimmed);
  snprintf (tsv, sizeof (tsv), "%s/../sets.tsv", trimmed);
  SetRow row;
  if (!read_sets_row (tsv, set->name, &row, msg, size))
    return false;
  set->suggested_disparities = row.ndisp;
  snprintf (path, sizeof (path), "%s/%s", trimmed, row.left);
  set->left = sd_image_read (path, msg, size);
  snprintf (path, sizeof (path), "%s/%s", trimmed, row.right);
  set->right = set->left ? sd_image_read (path, msg, size) : NULL;
  bool ok = set->right != NULL;
  if (ok && (set->right->plane.width != set->left->plane.width
          || set->right->plane.height != set->left->plane.height)) {
    snprintf (msg, size, "%s: the right image is %dx%d, the left %dx%d",
        dir, set->right->plane.width, set->right->plane.height,
        set->left->plane.width, set->left->plane.height);
    ok = false;
  }
  if (ok && row.gt_bits) {
    snprintf (path, sizeof (path), "%s/%s", trimmed, row.gt);
    SdImage *g = sd_image_read (path, msg, size);
    ok = g && decode_gt (set, g, &row, path, msg, size);
    sd_image_free (g);
  }
  if (!ok)
    sd_stereo_set_free (set);
  return ok;
}

void
sd_stereo_set_free (SdStereoSet * set)
{
  sd_image_free (set->left);
  sd_image_free (set->right);
  free (set->gt);
  set->left = set->right = NULL;
  set->gt = NULL;
}

SdAccuracy
sd_accuracy_score (const uint16_t * disp, size_t stride, const float *gt,
    const uint8_t * mask, int width, int height)
{
  SdAccuracy a = { 0 };
  long bad05 = 0, bad1 = 0, bad2 = 0, invalid = 0, valid = 0, bad1_valid = 0;
  long all_invalid = 0;
  double abs_sum = 0;
  for (int y = 0; y < height; y++) {
    const uint16_t *row = (const uint16_t *) ((const uint8_t *) disp +
        (size_t) y * stride);
    for (int x = 0; x < width; x++) {
      const size_t i = (size_t) y * width + x;
      all_invalid += row[x] == 0;
      if (!gt || gt[i] <= 0 || (mask && !mask[i]))
        continue;
      a.gt_pixels++;
      if (row[x] == 0) {
        invalid++;
        bad05++;
        bad1++;
        bad2++;
        continue;
      }
      const double err = fabs (row[x] / 16.0 - gt[i]);
      valid++;
      abs_sum += err;
      bad05 += err > 0.5;
      bad1 += err > 1.0;
      bad1_valid += err > 1.0;
      bad2 += err > 2.0;
    }
  }
  if (a.gt_pixels) {
    a.bad05 = 100.0 * bad05 / a.gt_pixels;
    a.bad1 = 100.0 * bad1 / a.gt_pixels;
    a.bad2 = 100.0 * bad2 / a.gt_pixels;
    a.invalid = 100.0 * invalid / a.gt_pixels;
  }
  a.mae = valid ? abs_sum / valid : 0;
  a.bad1_valid = valid ? 100.0 * bad1_valid / valid : 0;
  a.invalid_all = width && height ? 100.0 * all_invalid / ((double) width *
      height) : 0;
  return a;
}

uint16_t *
sd_engine_run_once (const char *backend, const SdParams * params,
    const SdPlane * left, const SdPlane * right, SdError * err)
{
  SdEngine *e = sd_engine_new (backend, 0, params, err);
  if (!e)
    return NULL;
  const int w = left->width, h = left->height;
  uint16_t *disp = malloc (sizeof (uint16_t) * w * h);
  SdPlane out = { disp, w, h, sizeof (uint16_t) * w, SD_PIXEL_GRAY16 };
  if (!disp)
    sd_error_set (err, SD_ERROR_OUT_OF_MEMORY, "out of memory");
  else if (sd_engine_process (e, left, right, &out, NULL, err) != SD_OK) {
    free (disp);
    disp = NULL;
  }
  sd_engine_free (e);
  return disp;
}

bool
sd_stereo_set_run (const SdStereoSet * set, const char *backend,
    const SdParams * params, SdAccuracy * accuracy, SdError * err)
{
  uint16_t *disp = sd_engine_run_once (backend, params, &set->left->plane,
      &set->right->plane, err);
  if (!disp)
    return false;
  const int w = set->left->plane.width, h = set->left->plane.height;
  *accuracy = sd_accuracy_score (disp, sizeof (uint16_t) * w, set->gt, NULL,
      w, h);
  free (disp);
  return true;
}

bool
sd_stereo_set_open (SdStereoSet * set, const char *data_dir,
    const char *name, char *msg, size_t size)
{
  char dir[1024];
  snprintf (dir, sizeof (dir), "%s/%s", data_dir, name);
  return sd_stereo_set_load (set, dir, msg, size);
}

bool
sd_stereo_set_score (const char *data_dir, const char *name,
    const char *backend, const SdParams * params, SdAccuracy * accuracy,
    char *msg, size_t size)
{
  SdStereoSet set;
  if (!sd_stereo_set_open (&set, data_dir, name, msg, size))
    return false;
  SdError err;
  const bool ok = sd_stereo_set_run (&set, backend, params, accuracy, &err);
  if (!ok)
    snprintf (msg, size, "%s: %s", name, err.message);
  sd_stereo_set_free (&set);
  return ok;
}

void
sd_output_fill_holes (const SdParams * p, uint16_t * out, uint8_t * conf,
    int width, int height)
{
  const size_t n = (size_t) width * height;
  int16_t *disp = malloc (n * sizeof (int16_t));
  uint8_t *seen = malloc (n);
  int32_t *queue = malloc (n * sizeof (int32_t));
  if (!disp || !seen || !queue)
    abort ();
  for (size_t i = 0; i < n; i++)
    disp[i] = out[i] ? (int16_t) out[i] : SD_DISP_INVALID;
  sd_cpu_remove_speckles (disp, conf, (size_t) width, width, height, seen,
      queue);
  int lo, hi;
  sd_output_disparity_bounds (p, &lo, &hi);
  sd_cpu_fill_holes (disp, width, height, lo, hi);
  for (size_t i = 0; i < n; i++)
    out[i] = disp[i] < 0 ? 0 : (uint16_t) disp[i];
  free (disp);
  free (seen);
  free (queue);
}

void
sd_output_guided_median (uint16_t * out, const uint8_t * guide, int width,
    int height)
{
  const size_t n = (size_t) width * height;
  int16_t *disp = malloc (n * sizeof (int16_t));
  int16_t *filtered = malloc (n * sizeof (int16_t));
  if (!disp || !filtered)
    abort ();
  /* the output's values are the disparities (the median takes 0 for a
   * hole, as invalid) */
  memcpy (disp, out, n * sizeof (int16_t));
  sd_cpu_guided_median (disp, guide, filtered, width, height);
  for (size_t i = 0; i < n; i++)
    out[i] = (uint16_t) filtered[i];
  free (disp);
  free (filtered);
}
