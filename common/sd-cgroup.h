/* The control groups (cgroups) of this process, as the kernel shows them
 * under /proc and /sys/fs/cgroup: a container's memory and CPU limits are
 * a group's, and the system-wide figures (MemAvailable, the cores) do not
 * see them.  sd-host-memory and sd-host-cpus read their limits through
 * these. */
#ifndef SD_CGROUP_H
#define SD_CGROUP_H

#include <stdbool.h>
#include <stddef.h>

/* One group of the process: group is its folder (the caller may shorten
 * it with sd_cgroup_parent), base_length the length of its hierarchy's
 * mount point at the start of it, v2 whether it is in the unified
 * hierarchy. */
typedef void (*SdCgroupVisit) (char *group, size_t base_length, bool v2,
    void *user);

/* Calls visit for each group of the process that the named v1 controller
 * ("memory", "cpu") governs, and for its v2 group: the lines of
 * root/proc/self/cgroup, found below root/sys/fs/cgroup.  root is a path
 * prefix, "" for the system's own (tests give a tree of their own).  A
 * container that sees its group by the host's path, with that group as
 * its mount's root, is visited at the root. */
void sd_cgroup_for_each (const char *root, const char *controller,
    SdCgroupVisit visit, void *user);

/* Shortens group to its parent's folder; false (group unchanged) at the
 * mount point, the hierarchy's root. */
bool sd_cgroup_parent (char *group, size_t base_length);

/* The text after key at the start of a line of the file name in folder
 * (a group's, or /proc: the kernel's files of "key value" lines; key "":
 * the first line), without its newline, in text; false when the file or
 * the key is missing or the path would not fit. */
bool sd_sysfile_read (const char *folder, const char *name, const char *key,
    char *text, size_t size);

/* The unsigned number after key (as sd_sysfile_read); false too where
 * there is none (cgroup v2 writes "max" for no limit). */
bool sd_sysfile_number (const char *folder, const char *name,
    const char *key, unsigned long long *value);

#endif
