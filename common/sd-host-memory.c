/* The host memory left to this process (sd-host-memory.h).  A container's
 * limit is a control group's: the kernel kills a process that passes it
 * however much the machine has free, so the room under it counts as much
 * as MemAvailable.  The files read are the kernel's documented interface
 * (Documentation/admin-guide/cgroup-v2.rst, cgroup-v1/memory.rst). */
#include "sd-host-memory.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef unsigned long long Bytes;

#define NO_LIMIT ULLONG_MAX

/* The number after key at the start of a line of the file at path (key
 * "": the first line's number); false when the file, the key or the
 * number is missing (cgroup v2 writes "max" for no limit). */
static bool
read_number (const char *path, const char *key, Bytes * value)
{
  FILE *f = fopen (path, "r");
  if (!f)
    return false;
  char line[256];
  bool found = false;
  const size_t k = strlen (key);
  while (!found && fgets (line, sizeof (line), f)) {
    if (strncmp (line, key, k) == 0)
      found = sscanf (line + k, " %llu", value) == 1;
    if (!k)
      break;
  }
  fclose (f);
  return found;
}

static bool
is_directory (const char *path)
{
  struct stat st;
  return stat (path, &st) == 0 && S_ISDIR (st.st_mode);
}

/* A group's limit less its usage; the inactive file pages (reclaimed
 * before the limit is enforced) are not counted as used. */
static Bytes
room_under (Bytes limit, Bytes usage, Bytes inactive_file)
{
  const Bytes used = usage > inactive_file ? usage - inactive_file : 0;
  return limit > used ? limit - used : 0;
}

/* The number after key in the group directory's file name (read_number);
 * false too when the path would not fit. */
static bool
read_group_number (const char *group, const char *name, const char *key,
    Bytes * value)
{
  char path[PATH_MAX];
  const int n = snprintf (path, sizeof (path), "%s/%s", group, name);
  return n > 0 && (size_t) n < sizeof (path) && read_number (path, key,
      value);
}

/* cgroup v2: a group's memory.max bounds it and every group below, so
 * the room is the least over the group and its ancestors up to the
 * mount's root (base).  The root group has no memory.max. */
static Bytes
v2_room (char *group, size_t base_length)
{
  Bytes room = NO_LIMIT;
  for (;;) {
    Bytes limit, usage, inactive = 0;
    if (read_group_number (group, "memory.max", "", &limit)
        && read_group_number (group, "memory.current", "", &usage)) {
      read_group_number (group, "memory.stat", "inactive_file ", &inactive);
      const Bytes r = room_under (limit, usage, inactive);
      room = r < room ? r : room;
    }
    if (strlen (group) <= base_length)
      return room;
    /* group is base and "/a/b": its last slash lies past base */
    *strrchr (group, '/') = '\0';
  }
}

/* cgroup v1: memory.stat's hierarchical limit is already the least over
 * the group's ancestors (as large as 2^63 when there is none). */
static Bytes
v1_room (const char *group)
{
  Bytes limit, usage, inactive = 0;
  if (!read_group_number (group, "memory.stat", "hierarchical_memory_limit ",
          &limit)
      && !read_group_number (group, "memory.limit_in_bytes", "", &limit))
    return NO_LIMIT;
  if (!read_group_number (group, "memory.usage_in_bytes", "", &usage))
    return NO_LIMIT;
  read_group_number (group, "memory.stat", "total_inactive_file ",
      &inactive);
  return room_under (limit, usage, inactive);
}

/* Whether a /proc/self/cgroup line's controller list (comma separated)
 * names the memory controller. */
static bool
names_memory (const char *controllers, size_t length)
{
  for (const char *c = controllers; c < controllers + length;) {
    const char *end = memchr (c, ',', controllers + length - c);
    const size_t n = end ? (size_t) (end - c) : (size_t) (controllers +
        length - c);
    if (n == 6 && strncmp (c, "memory", 6) == 0)
      return true;
    c += n + 1;
  }
  return false;
}

/* The room under the process's cgroup memory limits: its groups are the
 * lines of /proc/self/cgroup ("0::PATH" for v2, "N:memory,...:PATH" for
 * v1), found below the usual mount points.  A container that sees its
 * group by the host's path, with that group as its mount's root, is read
 * at the root. */
static Bytes
cgroup_room (const char *root)
{
  char path[PATH_MAX];
  snprintf (path, sizeof (path), "%s/proc/self/cgroup", root);
  FILE *f = fopen (path, "r");
  if (!f)
    return NO_LIMIT;
  Bytes room = NO_LIMIT;
  char line[PATH_MAX];
  while (fgets (line, sizeof (line), f)) {
    line[strcspn (line, "\n")] = '\0';
    char *controllers = strchr (line, ':');
    char *group = controllers ? strchr (controllers + 1, ':') : NULL;
    if (!group)
      continue;
    controllers++;
    const size_t n = (size_t) (group - controllers);
    group++;
    const bool v2 = strncmp (line, "0:", 2) == 0 && n == 0;
    if (!v2 && !names_memory (controllers, n))
      continue;
    char base[PATH_MAX], dir[PATH_MAX];
    const int b = snprintf (base, sizeof (base), "%s/sys/fs/cgroup%s", root,
        v2 ? "" : "/memory");
    if (b < 0 || (size_t) b >= sizeof (base))
      continue;
    const int d = snprintf (dir, sizeof (dir), "%s%s", base,
        strcmp (group, "/") ? group : "");
    if (d < 0 || (size_t) d >= sizeof (dir) || !is_directory (dir))
      memcpy (dir, base, (size_t) b + 1);
    const Bytes r = v2 ? v2_room (dir, strlen (base)) : v1_room (dir);
    room = r < room ? r : room;
  }
  fclose (f);
  return room;
}

size_t
sd_host_memory_available_under (const char *root)
{
  char path[PATH_MAX];
  snprintf (path, sizeof (path), "%s/proc/meminfo", root);
  Bytes kb, available = NO_LIMIT;
  if (read_number (path, "MemAvailable:", &kb))
    available = kb << 10;
  const Bytes room = cgroup_room (root);
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
