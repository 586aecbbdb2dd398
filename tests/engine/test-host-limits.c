/* The host's limits as the process meets them, read from trees of /proc
 * and /sys/fs/cgroup files written here the way the kernel writes them:
 * sd_host_memory_available, the system's available memory bounded by the
 * room under the process's cgroup memory limits, and sd_host_cpu_limit,
 * the CPU time its cgroups allow (both cgroup v2 and v1). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "sd-host-cpus.h"
#include "sd-host-memory.h"
#include "sd-test.h"

#define MB (1024ull * 1024ull)
#define MEMINFO "MemTotal:       16000000 kB\nMemFree:         1000000 kB\n" \
  "MemAvailable:    8388608 kB\nBuffers:          100000 kB\n"
#define MEMINFO_BYTES (8388608ull * 1024ull)

/* the folder the trees are written in */
static char tmp_dir[] = "/tmp/sd-host-limits-XXXXXX";

/* root/path holding text, its folders made as needed */
static void
write_file (const char *root, const char *path, const char *text)
{
  char full[PATH_MAX];
  snprintf (full, sizeof (full), "%s/%s", root, path);
  for (char *slash = strchr (full + strlen (root) + 1, '/'); slash;
      slash = strchr (slash + 1, '/')) {
    *slash = '\0';
    SD_CHECK (mkdir (full, 0700) == 0 || errno == EEXIST, "mkdir %s", full);
    *slash = '/';
  }
  FILE *f = fopen (full, "w");
  SD_CHECK (f != NULL, "cannot write %s", full);
  if (f) {
    fputs (text, f);
    fclose (f);
  }
}

/* A fresh tree with /proc/meminfo (8 GiB available) and the given
 * /proc/self/cgroup; its path in root. */
static void
new_tree (char *root, size_t size, const char *cgroup)
{
  static int count;
  snprintf (root, size, "%s/tree%d", tmp_dir, count++);
  SD_CHECK (mkdir (root, 0700) == 0, "mkdir %s", root);
  write_file (root, "proc/meminfo", MEMINFO);
  if (cgroup)
    write_file (root, "proc/self/cgroup", cgroup);
}

/* A v2 group's memory.max ("max" or bytes), memory.current and the
 * inactive file pages of memory.stat. */
static void
write_v2_group (const char *root, const char *group, const char *max,
    unsigned long long current, unsigned long long inactive_file)
{
  char path[PATH_MAX], text[256];
  snprintf (path, sizeof (path), "sys/fs/cgroup%s/memory.max", group);
  snprintf (text, sizeof (text), "%s\n", max);
  write_file (root, path, text);
  snprintf (path, sizeof (path), "sys/fs/cgroup%s/memory.current", group);
  snprintf (text, sizeof (text), "%llu\n", current);
  write_file (root, path, text);
  snprintf (path, sizeof (path), "sys/fs/cgroup%s/memory.stat", group);
  snprintf (text, sizeof (text), "anon %llu\nfile %llu\nactive_anon 0\n"
      "inactive_anon 0\nactive_file 0\ninactive_file %llu\n",
      current - inactive_file, inactive_file, inactive_file);
  write_file (root, path, text);
}

#define CHECK_BYTES(root, expected)                                   \
  SD_CHECK (sd_host_memory_available_under (root) == (expected),      \
      "%s: %zu bytes, expected %llu", root,                           \
      sd_host_memory_available_under (root),                          \
      (unsigned long long) (expected))

static void
test_no_limit (void)
{
  char root[PATH_MAX];
  new_tree (root, sizeof (root), NULL);
  CHECK_BYTES (root, MEMINFO_BYTES);
  /* a v2 group without a limit */
  new_tree (root, sizeof (root), "0::/user.slice/session-1.scope\n");
  write_v2_group (root, "/user.slice/session-1.scope", "max", 900 * MB, 0);
  write_v2_group (root, "/user.slice", "max", 2000 * MB, 0);
  CHECK_BYTES (root, MEMINFO_BYTES);
  /* nothing known */
  new_tree (root, sizeof (root), NULL);
  SD_CHECK (unlink (strcat (root, "/proc/meminfo")) == 0, "unlink");
  root[strlen (root) - strlen ("/proc/meminfo")] = '\0';
  CHECK_BYTES (root, SIZE_MAX);
}

static void
test_v2 (void)
{
  char root[PATH_MAX];
  /* 1 GiB, 600 MB used of which 100 MB inactive page cache: 524 MB */
  new_tree (root, sizeof (root), "0::/docker/abc\n");
  write_v2_group (root, "/docker/abc", "1073741824", 600 * MB, 100 * MB);
  CHECK_BYTES (root, 1024 * MB - 500 * MB);
  /* an ancestor with less room bounds it */
  write_v2_group (root, "/docker", "734003200", 650 * MB, 0);
  CHECK_BYTES (root, 50 * MB);
  /* the limit above the machine's memory: MemAvailable */
  new_tree (root, sizeof (root), "0::/big\n");
  write_v2_group (root, "/big", "68719476736", 10 * MB, 0);
  CHECK_BYTES (root, MEMINFO_BYTES);
  /* at its limit, nothing inactive: no room at all */
  new_tree (root, sizeof (root), "0::/full\n");
  write_v2_group (root, "/full", "104857600", 100 * MB, 0);
  CHECK_BYTES (root, 0);
  /* a container seeing its group by the host's path, that group mounted
   * as its root (no cgroup namespace) */
  new_tree (root, sizeof (root), "0::/system.slice/docker-1.scope\n");
  write_v2_group (root, "", "268435456", 56 * MB, 0);
  CHECK_BYTES (root, 200 * MB);
}

static void
test_v1 (void)
{
  char root[PATH_MAX];
  /* the hierarchical limit, the inactive page cache of the group's tree */
  new_tree (root, sizeof (root), "12:pids:/docker/abc\n"
      "4:cpu,memory:/docker/abc\n0::/\n");
  write_file (root, "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes",
      "9223372036854771712\n");
  write_file (root, "sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes",
      "314572800\n");
  write_file (root, "sys/fs/cgroup/memory/docker/abc/memory.stat",
      "cache 104857600\nrss 209715200\ninactive_file 0\n"
      "hierarchical_memory_limit 536870912\ntotal_inactive_file 52428800\n");
  CHECK_BYTES (root, 512 * MB - 250 * MB);
  /* unlimited (2^63 rounded to pages): MemAvailable */
  new_tree (root, sizeof (root), "4:memory:/\n");
  write_file (root, "sys/fs/cgroup/memory/memory.limit_in_bytes",
      "9223372036854771712\n");
  write_file (root, "sys/fs/cgroup/memory/memory.usage_in_bytes",
      "314572800\n");
  CHECK_BYTES (root, MEMINFO_BYTES);
  /* only memory.limit_in_bytes, the group at the mount's root */
  new_tree (root, sizeof (root), "4:memory:/kubepods/pod1\n");
  write_file (root, "sys/fs/cgroup/memory/memory.limit_in_bytes",
      "1073741824\n");
  write_file (root, "sys/fs/cgroup/memory/memory.usage_in_bytes",
      "1048576000\n");
  CHECK_BYTES (root, 24 * MB);
}

#define CHECK_CPUS(root, expected)                                    \
  SD_CHECK (sd_host_cpu_limit_under (root) == (expected),             \
      "%s: a limit of %d CPUs, expected %d", root,                    \
      sd_host_cpu_limit_under (root), (expected))

/* A v2 group's cpu.max: "QUOTA PERIOD", or "max PERIOD" for none. */
static void
write_cpu_max (const char *root, const char *group, const char *max)
{
  char path[PATH_MAX], text[256];
  snprintf (path, sizeof (path), "sys/fs/cgroup%s/cpu.max", group);
  snprintf (text, sizeof (text), "%s\n", max);
  write_file (root, path, text);
}

/* A v1 group's CFS quota (-1 for none) and period, in microseconds, in
 * the hierarchy mounted at sys/fs/cgroup/mount. */
static void
write_cfs (const char *root, const char *mount, const char *group,
    long long quota, long long period)
{
  char path[PATH_MAX], text[64];
  snprintf (path, sizeof (path), "sys/fs/cgroup/%s%s/cpu.cfs_quota_us",
      mount, group);
  snprintf (text, sizeof (text), "%lld\n", quota);
  write_file (root, path, text);
  snprintf (path, sizeof (path), "sys/fs/cgroup/%s%s/cpu.cfs_period_us",
      mount, group);
  snprintf (text, sizeof (text), "%lld\n", period);
  write_file (root, path, text);
}

static void
test_cpu_v2 (void)
{
  char root[PATH_MAX];
  /* no group file, no limit, a limit of its own */
  new_tree (root, sizeof (root), NULL);
  CHECK_CPUS (root, 0);
  new_tree (root, sizeof (root), "0::/user.slice/session-1.scope\n");
  write_cpu_max (root, "/user.slice/session-1.scope", "max 100000");
  write_cpu_max (root, "/user.slice", "max 100000");
  CHECK_CPUS (root, 0);
  /* docker --cpus=1.5: two threads' worth, rounded up */
  new_tree (root, sizeof (root), "0::/docker/abc\n");
  write_cpu_max (root, "/docker/abc", "150000 100000");
  CHECK_CPUS (root, 2);
  /* an ancestor that allows less bounds it; periods may differ */
  write_cpu_max (root, "/docker", "50000 50000");
  CHECK_CPUS (root, 1);
  /* a Kubernetes limit of 4 CPUs seen from inside its own namespace */
  new_tree (root, sizeof (root), "0::/\n");
  write_cpu_max (root, "", "400000 100000");
  CHECK_CPUS (root, 4);
  /* a group under a quarter of a CPU still gets a thread */
  new_tree (root, sizeof (root), "0::/small\n");
  write_cpu_max (root, "/small", "25000 100000");
  CHECK_CPUS (root, 1);
}

static void
test_cpu_v1 (void)
{
  char root[PATH_MAX];
  /* cpu and cpuacct mounted together, under their list's name */
  new_tree (root, sizeof (root), "5:memory:/docker/abc\n"
      "4:cpu,cpuacct:/docker/abc\n0::/\n");
  write_cfs (root, "cpu,cpuacct", "/docker/abc", 300000, 100000);
  write_cfs (root, "cpu,cpuacct", "/docker", -1, 100000);
  write_cfs (root, "cpu,cpuacct", "", -1, 100000);
  CHECK_CPUS (root, 3);
  /* unlimited (-1) at every level */
  new_tree (root, sizeof (root), "4:cpu,cpuacct:/docker/abc\n");
  write_cfs (root, "cpu,cpuacct", "/docker/abc", -1, 100000);
  CHECK_CPUS (root, 0);
  /* cpu mounted alone, an ancestor's quota the tighter */
  new_tree (root, sizeof (root), "3:cpu:/kubepods/pod1\n");
  write_cfs (root, "cpu", "/kubepods/pod1", 800000, 100000);
  write_cfs (root, "cpu", "/kubepods", 200000, 100000);
  CHECK_CPUS (root, 2);
  /* the group is the mount's root (no cgroup namespace on the path) */
  new_tree (root, sizeof (root), "3:cpu:/system.slice/docker-1.scope\n");
  write_cfs (root, "cpu", "", 100000, 100000);
  CHECK_CPUS (root, 1);
}

int
main (void)
{
  if (!mkdtemp (tmp_dir)) {
    fprintf (stderr, "mkdtemp failed\n");
    return 1;
  }
  test_no_limit ();
  test_v2 ();
  test_v1 ();
  test_cpu_v2 ();
  test_cpu_v1 ();
  /* this machine's own (Linux): a figure */
  const size_t own = sd_host_memory_available ();
  SD_CHECK (own > 0 && own < SIZE_MAX, "own: %zu", own);
  /* and its threads: at least one, at most OpenMP's count */
  const int threads = sd_host_threads ();
  SD_CHECK (threads >= 1, "threads: %d", threads);
#ifdef _OPENMP
  SD_CHECK (threads <= omp_get_max_threads (), "threads: %d of %d", threads,
      omp_get_max_threads ());
  const int limit = sd_host_cpu_limit ();
  SD_CHECK (limit == 0 || getenv ("OMP_NUM_THREADS") || threads <= limit,
      "threads: %d under a limit of %d CPUs", threads, limit);
#endif
  char command[PATH_MAX + 16];
  snprintf (command, sizeof (command), "rm -rf %s", tmp_dir);
  SD_CHECK (system (command) == 0, "%s", command);
  return sd_test_exit ("test-host-limits");
}
