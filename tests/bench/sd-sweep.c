/* sd-sweep: scores candidate parameter settings on every set of one or more
 * data folders, loading each set once and keeping one engine, so that a
 * sweep of hundreds of candidates costs engine time, not process starts.
 * tests/sweep-defaults.py drives it and prints the table.
 *
 * Candidates are read from standard input, one a line, as sd-bench options
 * ("--p1 10 --p2 120"); an empty line is the defaults.  Each set runs with
 * its suggested disparity count unless the candidate names one, once with
 * fill-holes off and once on.  One tab-separated line is printed per run:
 *   candidate  set  fill  bad1  est  invalid
 * bad1 and est are empty for a set without ground truth; invalid is then the
 * share of all pixels (see SdAccuracy). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sd-engine.h"
#include "sd-eval.h"

#define MAX_SETS 256

/* Applies a candidate's options to p; says which option is wrong. */
static bool
apply_options (SdParams * p, const char *candidate, bool *ndisp_given,
    char *msg, size_t size)
{
  char buf[2048];
  snprintf (buf, sizeof (buf), "%s", candidate);
  *ndisp_given = false;
  char *save = NULL;
  for (char *name = strtok_r (buf, " \t", &save); name;
      name = strtok_r (NULL, " \t", &save)) {
    char *value = strtok_r (NULL, " \t", &save);
    if (strncmp (name, "--", 2) != 0 || !value) {
      snprintf (msg, size, "'%s' is not an option with a value", name);
      return false;
    }
    if (!sd_params_set_from_string (p, name + 2, value, msg, size))
      return false;
    *ndisp_given |= !strcmp (name, "--num-disparities");
  }
  return true;
}

int
main (int argc, char **argv)
{
  const char *backend = "cpu";
  static SdStereoSet sets[MAX_SETS];
  int n_sets = 0;
  char msg[512];
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp (argv[i], "--backend"))
      backend = argv[i + 1];
    else if (!strcmp (argv[i], "--data")) {
      char names[MAX_SETS][64];
      const int n = sd_stereo_set_names (argv[i + 1], names,
          MAX_SETS - n_sets);
      if (n < 0) {
        fprintf (stderr, "sd-sweep: no sets.tsv in %s\n", argv[i + 1]);
        return 1;
      }
      for (int k = 0; k < n; k++, n_sets++)
        if (!sd_stereo_set_open (&sets[n_sets], argv[i + 1], names[k], msg,
                sizeof (msg))) {
          fprintf (stderr, "sd-sweep: %s\n", msg);
          return 1;
        }
    } else {
      fprintf (stderr, "usage: sd-sweep [--backend auto|cpu|cuda] --data DIR"
          " [--data DIR ...] < candidates\n");
      return 2;
    }
  }
  SdParams defaults;
  sd_params_init (&defaults);
  SdError err;
  SdEngine *engine = sd_engine_new (backend, 0, &defaults, &err);
  if (!engine) {
    fprintf (stderr, "sd-sweep: %s\n", err.message);
    return 1;
  }
  /* one output plane, of the largest set */
  size_t largest = 0;
  for (int s = 0; s < n_sets; s++) {
    const size_t n = (size_t) sets[s].left->plane.width *
        sets[s].left->plane.height;
    largest = n > largest ? n : largest;
  }
  uint16_t *disp = malloc (sizeof (uint16_t) * (largest ? largest : 1));
  if (!disp) {
    fprintf (stderr, "sd-sweep: out of memory\n");
    return 1;
  }
  int status = 0;
  char line[2048];
  while (status == 0 && fgets (line, sizeof (line), stdin)) {
    line[strcspn (line, "\r\n")] = '\0';
    SdParams candidate = defaults;
    bool ndisp_given;
    if (!apply_options (&candidate, line, &ndisp_given, msg, sizeof (msg))) {
      fprintf (stderr, "sd-sweep: candidate '%s': %s\n", line, msg);
      status = 2;
      break;
    }
    for (int s = 0; s < n_sets && status == 0; s++) {
      const SdStereoSet *set = &sets[s];
      const int w = set->left->plane.width, h = set->left->plane.height;
      SdParams p = candidate;
      if (!ndisp_given)
        p.num_disparities = set->suggested_disparities;
      SdPlane out = { disp, w, h, sizeof (uint16_t) * w, SD_PIXEL_GRAY16 };
      for (int fill = 0; fill < 2 && status == 0; fill++) {
        p.fill_holes = fill ? SD_FILL_HOLES_ON : SD_FILL_HOLES_OFF;
        if (sd_engine_set_params (engine, &p, &err) != SD_OK
            || sd_engine_process (engine, &set->left->plane,
                &set->right->plane, &out, NULL, &err) != SD_OK) {
          fprintf (stderr, "sd-sweep: candidate '%s' on %s: %s\n", line,
              set->name, err.message);
          status = 1;
          break;
        }
        const SdAccuracy a = sd_accuracy_score (disp, out.stride, set->gt,
            NULL, w, h);
        if (set->gt)
          printf ("%s\t%s\t%s\t%.2f\t%.2f\t%.2f\n", line, set->name,
              fill ? "on" : "off", a.bad1, a.bad1_valid, a.invalid);
        else
          printf ("%s\t%s\t%s\t\t\t%.2f\n", line, set->name,
              fill ? "on" : "off", a.invalid_all);
      }
      fflush (stdout);
    }
  }
  free (disp);
  sd_engine_free (engine);
  for (int s = 0; s < n_sets; s++)
    sd_stereo_set_free (&sets[s]);
  return status;
}
