/* How much host memory this process may still take, for the CPU backend's
 * choice of bands: the system's available memory, and in a container (or
 * any control group with a memory limit) the room left under that limit,
 * which the system-wide figure does not see. */
#ifndef SD_HOST_MEMORY_H
#define SD_HOST_MEMORY_H

#include <stddef.h>

/* Bytes that can still be allocated without swapping and without meeting
 * a memory limit of the process's control group: the least of Linux's
 * MemAvailable and, for each limit (cgroup v2's memory.max of the group
 * and its ancestors, v1's hierarchical limit), the limit less the usage,
 * the inactive page cache the kernel drops first not counted as used.
 * SIZE_MAX when the system says nothing; 0 when a group is at its limit. */
size_t sd_host_memory_available (void);

/* The same, with /proc and /sys/fs/cgroup read under root (a path
 * prefix, "" for the system's own): tests give it a tree of their own. */
size_t sd_host_memory_available_under (const char *root);

#endif
