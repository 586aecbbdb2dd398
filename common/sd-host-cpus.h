/* How many threads the CPU stages should compute with: a container (or
 * any control group) may allow the process less CPU time than the machine
 * has cores, and OpenMP, which counts the cores the process may run on,
 * does not see that.  More threads than the limit allows only take turns
 * at being stopped: under a limit of one CPU on two cores, two threads
 * made a 640x480 pair 1.4x slower than one (docs/performance.md, "Threads
 * under a container's CPU limit"). */
#ifndef SD_HOST_CPUS_H
#define SD_HOST_CPUS_H

/* The CPUs' worth of time the process's control groups allow it, rounded
 * up: the least quota / period over its groups and their ancestors (cgroup
 * v2's cpu.max, v1's cpu.cfs_quota_us and cpu.cfs_period_us); 0 when none
 * limits it. */
int sd_host_cpu_limit (void);

/* The same, with /proc and /sys/fs/cgroup read under root (a path prefix,
 * "" for the system's own): tests give it a tree of their own. */
int sd_host_cpu_limit_under (const char *root);

/* The threads a CPU stage uses when nobody said how many: OpenMP's count
 * (one per core the process may run on, or OMP_NUM_THREADS), lowered to
 * sd_host_cpu_limit() unless OMP_NUM_THREADS asks for a count.  Read once
 * per process; 1 without OpenMP. */
int sd_host_threads (void);

#endif
