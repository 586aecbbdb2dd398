/* Accuracy on the Middlebury sets with the default SGM parameters and hole
 * filling on: bad>1 over all ground-truth pixels, invalid counted as bad,
 * within the limits the project promised.  argv[1] is the data folder. */
#include <stdio.h>
#include <sys/stat.h>

#include "sd-engine.h"
#include "sd-eval.h"
#include "sd-test.h"

int
main (int argc, char **argv)
{
  static const struct
  {
    const char *set;
    double limit;               /* percent bad>1 */
  } sets[] = {
    {"mb2001_tsukuba", 7},
    {"mb2001_venus", 5},
    {"mb2003_teddy_quarter", 16},
    {"mb2003_cones_quarter", 14},
  };
  struct stat st;
  if (argc < 2 || stat (argv[1], &st) != 0) {
    printf ("no stereo data folder (%s): skipped\n", argc < 2 ? "none given"
        : argv[1]);
    return SD_TEST_SKIP;
  }
  for (size_t i = 0; i < sizeof (sets) / sizeof (sets[0]); i++) {
    char msg[512];
    SdStereoSet set;
    if (!sd_stereo_set_open (&set, argv[1], sets[i].set, msg, sizeof (msg))) {
      SD_CHECK (0, "%s", msg);
      continue;
    }
    SdParams p;
    sd_params_init (&p);
    p.fill_holes = SD_FILL_HOLES_ON;
    p.num_disparities = set.suggested_disparities;
    SdError err;
    SdAccuracy a = { 0 };
    SD_CHECK (sd_stereo_set_run (&set, "cpu", &p, &a, &err), "%s: %s",
        set.name, err.message);
    printf ("%-22s D=%-3d bad>1 %6.2f %% (limit %4.1f %%)  bad>0.5 %6.2f %%"
        "  bad>2 %6.2f %%  mae %.3f px  invalid %.2f %%\n", set.name,
        p.num_disparities, a.bad1, sets[i].limit, a.bad05, a.bad2, a.mae,
        a.invalid);
    SD_CHECK (a.bad1 <= sets[i].limit, "%s: bad>1 %.2f %% is over %.1f %%",
        set.name, a.bad1, sets[i].limit);
    sd_stereo_set_free (&set);
  }
  return sd_test_exit ("test-middlebury");
}
