/* The process's control groups (sd-cgroup.h).  The files read are the
 * kernel's documented interface (Documentation/admin-guide/cgroup-v2.rst
 * and cgroup-v1/). */
#include "sd-cgroup.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static bool
is_directory (const char *path)
{
  struct stat st;
  return stat (path, &st) == 0 && S_ISDIR (st.st_mode);
}

bool
sd_sysfile_read (const char *folder, const char *name, const char *key,
    char *text, size_t size)
{
  char path[PATH_MAX];
  const int n = snprintf (path, sizeof (path), "%s/%s", folder, name);
  if (n < 0 || (size_t) n >= sizeof (path))
    return false;
  FILE *f = fopen (path, "r");
  if (!f)
    return false;
  char line[256];
  bool found = false;
  const size_t k = strlen (key);
  while (!found && fgets (line, sizeof (line), f)) {
    found = strncmp (line, key, k) == 0;
    if (found)
      snprintf (text, size, "%.*s", (int) strcspn (line + k, "\n"),
          line + k);
    if (!k)
      break;
  }
  fclose (f);
  return found;
}

bool
sd_sysfile_number (const char *folder, const char *name, const char *key,
    unsigned long long *value)
{
  char text[256];
  /* %llu would take "-1" (v1's "no limit") as a huge number */
  return sd_sysfile_read (folder, name, key, text, sizeof (text))
      && strchr (text, '-') == NULL && sscanf (text, " %llu", value) == 1;
}

bool
sd_cgroup_parent (char *group, size_t base_length)
{
  if (strlen (group) <= base_length)
    return false;
  /* group is the base and "/a/b": its last slash lies past the base */
  *strrchr (group, '/') = '\0';
  return true;
}

/* Whether a /proc/self/cgroup line's controller list (comma separated)
 * names the controller. */
static bool
names_controller (const char *controllers, size_t length,
    const char *controller)
{
  const size_t want = strlen (controller);
  for (const char *c = controllers; c < controllers + length;) {
    const char *end = memchr (c, ',', controllers + length - c);
    const size_t n = end ? (size_t) (end - c) : (size_t) (controllers +
        length - c);
    if (n == want && strncmp (c, controller, n) == 0)
      return true;
    c += n + 1;
  }
  return false;
}

/* The mount point of a line's hierarchy in base: v2's, or a v1
 * controller's, mounted under its list's name ("cpu,cpuacct") or under
 * the controller's alone; false when none fits. */
static bool
find_base (const char *root, bool v2, const char *controllers, size_t n,
    const char *controller, char *base, size_t size)
{
  int b = snprintf (base, size, "%s/sys/fs/cgroup%s%.*s", root,
      v2 ? "" : "/", v2 ? 0 : (int) n, controllers);
  if (b < 0 || (size_t) b >= size)
    return false;
  if (v2 || is_directory (base))
    return true;
  b = snprintf (base, size, "%s/sys/fs/cgroup/%s", root, controller);
  return b >= 0 && (size_t) b < size;
}

void
sd_cgroup_for_each (const char *root, const char *controller,
    SdCgroupVisit visit, void *user)
{
  char path[PATH_MAX];
  snprintf (path, sizeof (path), "%s/proc/self/cgroup", root);
  FILE *f = fopen (path, "r");
  if (!f)
    return;
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
    if (!v2 && !names_controller (controllers, n, controller))
      continue;
    char base[PATH_MAX], dir[PATH_MAX];
    if (!find_base (root, v2, controllers, n, controller, base,
            sizeof (base)))
      continue;
    const int d = snprintf (dir, sizeof (dir), "%s%s", base,
        strcmp (group, "/") ? group : "");
    if (d < 0 || (size_t) d >= sizeof (dir) || !is_directory (dir))
      snprintf (dir, sizeof (dir), "%s", base);
    visit (dir, strlen (base), v2, user);
  }
  fclose (f);
}
