/* Picks the fast stages' build for this processor (see sd-fast.h). */
#include "sd-fast.h"

#include <stdlib.h>
#include <string.h>

extern const SdSgmStages sd_fast_stages_portable;
#ifdef SD_FAST_HAVE_AVX2
extern const SdSgmStages sd_fast_stages_avx2;
#endif

const SdSgmStages *
sd_fast_sgm_stages (void)
{
  const char *forced = getenv ("SD_CPU_ISA");
  const SdSgmStages *best = &sd_fast_stages_portable;
#ifdef SD_FAST_HAVE_AVX2
  /* the AVX2 build uses popcnt too */
  if (__builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("popcnt"))
    best = &sd_fast_stages_avx2;
#endif
  if (forced && !strcmp (forced, "portable"))
    return &sd_fast_stages_portable;
  return best;
}
