/* The CPU time this process may use (sd-host-cpus.h).  The files read are
 * the kernel's documented interface (Documentation/admin-guide/
 * cgroup-v2.rst's cpu.max, cgroup-v1's CFS bandwidth in
 * scheduler/sched-bwc.rst). */
#include "sd-host-cpus.h"

#include "sd-cgroup.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* The tightest quota / period seen, in CPUs (0: no limit seen yet). */
static void
tighten (double *cpus, unsigned long long quota, unsigned long long period)
{
  if (quota == 0 || period == 0)
    return;
  const double c = (double) quota / (double) period;
  if (*cpus == 0 || c < *cpus)
    *cpus = c;
}

/* A group and its ancestors each bound the CPU time of every group below
 * them, in both versions; v1 has no file that sums them up. */
static void
visit_group (char *group, size_t base_length, bool v2, void *user)
{
  double *cpus = user;
  do {
    unsigned long long quota, period;
    char text[256];
    if (v2) {
      /* "max 100000" when unlimited */
      if (sd_sysfile_read (group, "cpu.max", "", text, sizeof (text))
          && sscanf (text, "%llu %llu", &quota, &period) == 2)
        tighten (cpus, quota, period);
    } else if (sd_sysfile_number (group, "cpu.cfs_quota_us", "", &quota)
        && sd_sysfile_number (group, "cpu.cfs_period_us", "", &period)) {
      tighten (cpus, quota, period);
    }
  } while (sd_cgroup_parent (group, base_length));
}

int
sd_host_cpu_limit_under (const char *root)
{
  double cpus = 0;
  sd_cgroup_for_each (root, "cpu", visit_group, &cpus);
  return cpus > 1 << 20 ? 1 << 20 : (int) ceil (cpus);
}

int
sd_host_cpu_limit (void)
{
  return sd_host_cpu_limit_under ("");
}

static int host_threads = 1;

static void
find_host_threads (void)
{
#ifdef _OPENMP
  host_threads = omp_get_max_threads ();
  const int limit = getenv ("OMP_NUM_THREADS") ? 0 : sd_host_cpu_limit ();
  if (limit > 0 && limit < host_threads)
    host_threads = limit;
#endif
}

int
sd_host_threads (void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once (&once, find_host_threads);
  return host_threads;
}
