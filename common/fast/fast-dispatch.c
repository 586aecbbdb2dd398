/* Picks the fast stages' build for this processor (see sd-fast.h). */
#include "sd-fast.h"

#include <stdlib.h>
#include <string.h>

extern const SdCpuStages sd_fast_stages_portable;
#ifdef SD_FAST_HAVE_SSE41
extern const SdCpuStages sd_fast_stages_sse41;
extern const SdCpuStages sd_fast_stages_avx2;
extern const SdCpuStages sd_fast_stages_avx512;
#endif

/* Whether this processor has what the build of that name uses (every x86
 * build uses popcnt). */
static bool
runs (const char *isa)
{
#ifdef SD_FAST_HAVE_SSE41
  __builtin_cpu_init ();
  const bool popcnt = __builtin_cpu_supports ("popcnt");
  if (!strcmp (isa, "sse41"))
    return popcnt && __builtin_cpu_supports ("sse4.1");
  if (!strcmp (isa, "avx2"))
    return popcnt && __builtin_cpu_supports ("avx2");
  if (!strcmp (isa, "avx512"))
    return popcnt && __builtin_cpu_supports ("avx512f")
        && __builtin_cpu_supports ("avx512bw")
        && __builtin_cpu_supports ("avx512vl");
#endif
  return !strcmp (isa, "portable");
}

const SdCpuStages *
sd_fast_pick_stages (void)
{
  /* worst first */
  static const SdCpuStages *const builds[] = {
    &sd_fast_stages_portable,
#ifdef SD_FAST_HAVE_SSE41
    &sd_fast_stages_sse41, &sd_fast_stages_avx2, &sd_fast_stages_avx512,
#endif
  };
  const char *forced = getenv ("SD_CPU_ISA");
  const SdCpuStages *best = builds[0];
  for (size_t i = 0; i < sizeof (builds) / sizeof (builds[0]); i++) {
    if (!runs (builds[i]->isa))
      continue;
    if (forced && !strcmp (forced, builds[i]->isa))
      return builds[i];
    best = builds[i];
  }
  return best;
}
