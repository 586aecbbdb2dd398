/* A few assertion macros for the engine tests: each failed check prints
 * where and why, and sd_test_exit() turns the count into the exit status
 * (77, meson's "skipped", is returned by tests that cannot run here). */
#ifndef SD_TEST_H
#define SD_TEST_H

#include <stdio.h>
#include <stdlib.h>

extern int sd_test_failures;

#define SD_CHECK(cond, ...)                                            \
  do {                                                                 \
    if (!(cond)) {                                                     \
      sd_test_failures++;                                              \
      fprintf (stderr, "%s:%d: check failed: %s: ", __FILE__,         \
          __LINE__, #cond);                                            \
      fprintf (stderr, __VA_ARGS__);                                   \
      fputc ('\n', stderr);                                            \
    }                                                                  \
  } while (0)

#define SD_CHECK_INT(a, b)                                             \
  SD_CHECK ((long long) (a) == (long long) (b), "%s = %lld, expected %lld", \
      #a, (long long) (a), (long long) (b))

#define SD_TEST_SKIP 77

static inline int
sd_test_exit (const char *name)
{
  if (sd_test_failures)
    fprintf (stderr, "%s: %d check%s failed\n", name, sd_test_failures,
        sd_test_failures == 1 ? "" : "s");
  else
    printf ("%s: all checks passed\n", name);
  return sd_test_failures ? 1 : 0;
}

#endif
