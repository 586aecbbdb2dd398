/* The host memory left to this process (sd-host-memory.h).  A container's
 * limit is a control group's: the kernel kills a process that passes it
 * however much the machine has free, so the room under it counts as much
 * as MemAvailable.  The files read are the kernel's documented interface
 * (Documentation/admin-guide/cgroup-v2.rst, cgroup-v1/memory.rst). */
#include "sd-host-memory.h"

#include "sd-cgroup.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

typedef unsigned long long Bytes;

#define NO_LIMIT ULLONG_MAX

/* A group's limit less its usage; the inactive file pages (reclaimed
 * before the limit is enforced) are not counted as used. */
static Bytes
room_under (Bytes limit, Bytes usage, Bytes inactive_file)
{
  const Bytes used = usage > inactive_file ? usage - inactive_file : 0;
  return limit > used ? limit - used : 0;
}

/* cgroup v2: a group's memory.max bounds it and every group below, so
 * the room is the least over the group and its ancestors up to the
 * mount's root.  The root group has no memory.max. */
static Bytes
v2_room (char *group, size_t base_length)
{
  Bytes room = NO_LIMIT;
  do {
    Bytes limit, usage, inactive = 0;
    if (sd_sysfile_number (group, "memory.max", "", &limit)
        && sd_sysfile_number (group, "memory.current", "", &usage)) {
      sd_sysfile_number (group, "memory.stat", "inactive_file ",
          &inactive);
      const Bytes r = room_under (limit, usage, inactive);
      room = r < room ? r : room;
    }
  } while (sd_cgroup_parent (group, base_length));
  return room;
}

/* cgroup v1: memory.stat's hierarchical limit is already the least over
 * the group's ancestors (as large as 2^63 when there is none). */
static Bytes
v1_room (const char *group)
{
  Bytes limit, usage, inactive = 0;
  if (!sd_sysfile_number (group, "memory.stat",
          "hierarchical_memory_limit ", &limit)
      && !sd_sysfile_number (group, "memory.limit_in_bytes", "", &limit))
    return NO_LIMIT;
  if (!sd_sysfile_number (group, "memory.usage_in_bytes", "", &usage))
    return NO_LIMIT;
  sd_sysfile_number (group, "memory.stat", "total_inactive_file ",
      &inactive);
  return room_under (limit, usage, inactive);
}

/* The least room over the groups visited. */
static void
visit_group (char *group, size_t base_length, bool v2, void *user)
{
  Bytes *room = user;
  const Bytes r = v2 ? v2_room (group, base_length) : v1_room (group);
  *room = r < *room ? r : *room;
}

size_t
sd_host_memory_available_under (const char *root)
{
  char path[PATH_MAX];
  snprintf (path, sizeof (path), "%s/proc", root);
  Bytes kb, available = NO_LIMIT;
  if (sd_sysfile_number (path, "meminfo", "MemAvailable:", &kb))
    available = kb << 10;
  Bytes room = NO_LIMIT;
  sd_cgroup_for_each (root, "memory", visit_group, &room);
  available = room < available ? room : available;
  return available > SIZE_MAX ? SIZE_MAX : (size_t) available;
}

size_t
sd_host_memory_available (void)
{
  const size_t available = sd_host_memory_available_under ("");
#ifdef _SC_AVPHYS_PAGES
  if (available == SIZE_MAX) {
    /* without /proc: the free pages */
    const long pages = sysconf (_SC_AVPHYS_PAGES);
    const long page = sysconf (_SC_PAGESIZE);
    if (pages > 0 && page > 0)
      return (size_t) pages * (size_t) page;
  }
#endif
  return available;
}
