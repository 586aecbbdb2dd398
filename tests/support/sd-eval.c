#include "sd-eval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
say (char *msg, size_t size, const char *what, const char *detail)
{
  snprintf (msg, size, "%s%s%s", what, detail ? ": " : "",
      detail ? detail : "");
}

/* Finds the row of sets.tsv for set name; fills the columns we use. */
static bool
read_sets_row (const char *tsv, const char *name, char *left, char *right,
    char *gt, int *divisor, int *ndisp, char *msg, size_t size)
{
  FILE *f = fopen (tsv, "r");
  if (!f) {
    say (msg, size, "cannot open the set index", tsv);
    return false;
  }
  char line[1024];
  bool found = false;
  int col_left = -1, col_right = -1, col_gt = -1, col_decode = -1,
      col_ndisp = -1;
  bool header = true;
  while (!found && fgets (line, sizeof (line), f)) {
    line[strcspn (line, "\r\n")] = '\0';
    char *cols[32];
    int n = 0;
    for (char *p = line; n < 32;) {
      cols[n++] = p;
      char *tab = strchr (p, '\t');
      if (!tab)
        break;
      *tab = '\0';
      p = tab + 1;
    }
    if (header) {
      for (int i = 0; i < n; i++) {
        if (!strcmp (cols[i], "left"))
          col_left = i;
        else if (!strcmp (cols[i], "right"))
          col_right = i;
        else if (!strcmp (cols[i], "gt"))
          col_gt = i;
        else if (!strcmp (cols[i], "gt_decode"))
          col_decode = i;
        else if (!strcmp (cols[i], "ndisp_x16"))
          col_ndisp = i;
      }
      header = false;
      if (col_left < 0 || col_right < 0 || col_gt < 0 || col_decode < 0
          || col_ndisp < 0)
        break;
      continue;
    }
    if (strcmp (cols[0], name) != 0)
      continue;
    int need = col_left > col_right ? col_left : col_right;
    if (col_gt > need)
      need = col_gt;
    if (col_decode > need)
      need = col_decode;
    if (col_ndisp > need)
      need = col_ndisp;
    if (n <= need)
      break;
    snprintf (left, 256, "%s", cols[col_left]);
    snprintf (right, 256, "%s", cols[col_right]);
    snprintf (gt, 256, "%s", cols[col_gt]);
    /* gt_decode is "uint8/<divisor>" */
    const char *slash = strchr (cols[col_decode], '/');
    *divisor = slash ? atoi (slash + 1) : 0;
    *ndisp = atoi (cols[col_ndisp]);
    found = *divisor > 0;
  }
  fclose (f);
  if (!found)
    say (msg, size, "set not found or malformed in", tsv);
  return found;
}

bool
sd_stereo_set_load (SdStereoSet * set, const char *dir, char *msg,
    size_t size)
{
  memset (set, 0, sizeof (*set));
  char path[1024], tsv[1024], left[256], right[256], gt[256];
  int divisor, ndisp;
  /* the set's name is the last component of dir */
  char trimmed[1024];
  snprintf (trimmed, sizeof (trimmed), "%s", dir);
  size_t len = strlen (trimmed);
  while (len > 1 && trimmed[len - 1] == '/')
    trimmed[--len] = '\0';
  const char *slash = strrchr (trimmed, '/');
  snprintf (set->name, sizeof (set->name), "%s", slash ? slash + 1 : trimmed);
  snprintf (tsv, sizeof (tsv), "%s/../sets.tsv", trimmed);
  if (!read_sets_row (tsv, set->name, left, right, gt, &divisor, &ndisp, msg,
          size))
    return false;
  set->suggested_disparities = ndisp;
  snprintf (path, sizeof (path), "%s/%s", trimmed, left);
  set->left = sd_image_read (path, msg, size);
  snprintf (path, sizeof (path), "%s/%s", trimmed, right);
  set->right = set->left ? sd_image_read (path, msg, size) : NULL;
  snprintf (path, sizeof (path), "%s/%s", trimmed, gt);
  SdImage *g = set->right ? sd_image_read (path, msg, size) : NULL;
  if (!g) {
    sd_stereo_set_free (set);
    return false;
  }
  const int w = g->plane.width, h = g->plane.height;
  if (g->plane.format != SD_PIXEL_GRAY8 || w != set->left->plane.width
      || h != set->left->plane.height || w != set->right->plane.width
      || h != set->right->plane.height) {
    say (msg, size, "ground truth is not 8-bit gray of the image size", dir);
    sd_image_free (g);
    sd_stereo_set_free (set);
    return false;
  }
  set->gt = malloc (sizeof (float) * w * h);
  for (int y = 0; set->gt && y < h; y++) {
    const uint8_t *row = sd_plane_row (&g->plane, y);
    for (int x = 0; x < w; x++)
      set->gt[(size_t) y * w + x] = (float) row[x] / (float) divisor;
  }
  sd_image_free (g);
  if (!set->gt) {
    say (msg, size, "out of memory", NULL);
    sd_stereo_set_free (set);
    return false;
  }
  return true;
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
  long bad05 = 0, bad1 = 0, bad2 = 0, invalid = 0, valid = 0;
  double abs_sum = 0;
  for (int y = 0; y < height; y++) {
    const uint16_t *row = (const uint16_t *) ((const uint8_t *) disp +
        (size_t) y * stride);
    for (int x = 0; x < width; x++) {
      const size_t i = (size_t) y * width + x;
      if (gt[i] <= 0 || (mask && !mask[i]))
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
  else if (sd_engine_process (e, left, right, &out, err) != SD_OK) {
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
    say (msg, size, name, err.message);
  sd_stereo_set_free (&set);
  return ok;
}
