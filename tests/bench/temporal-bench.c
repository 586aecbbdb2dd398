/* The temporal filter's speed (common/sd-temporal.h): a 1920x1080 frame
 * (or WxH) of noise around one value with a fifth of the pixels invalid,
 * filtered against the last; prints the minimum of 30 frames and the
 * instruction set's build (SD_CPU_ISA picks another, as for the cpu
 * backend).
 *   temporal-bench [WxH] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fast/sd-fast.h"
#include "sd-temporal.h"

int
main (int argc, char **argv)
{
  int w = 1920, h = 1080;
  if (argc > 1 && sscanf (argv[1], "%dx%d", &w, &h) != 2) {
    fprintf (stderr, "usage: temporal-bench [WxH]\n");
    return 2;
  }
  const size_t n = (size_t) w * h;
  uint16_t *frame = malloc (n * sizeof (*frame));
  const SdTemporalParams p = { 102, 16, 2 };    /* alpha 0.4, persistence 2 */
  SdTemporal t;
  unsigned seed = 1;
  double best = 1e30;

  if (!frame)
    return 1;
  sd_temporal_init (&t);
  for (int i = 0; i < 30; i++) {
    for (size_t j = 0; j < n; j++) {
      seed = seed * 1103515245u + 12345u;
      frame[j] = (seed >> 16) % 5 == 0 ? 0 : (uint16_t) (800 + (seed >> 8) % 16);
    }
    struct timespec a, b;
    clock_gettime (CLOCK_MONOTONIC, &a);
    if (!sd_temporal_apply (&t, &p, frame, w, h, (size_t) w * 2))
      return 1;
    clock_gettime (CLOCK_MONOTONIC, &b);
    const double ms = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) /
        1e6;
    if (ms < best)
      best = ms;
  }
  printf ("%dx%d: %.3f ms a frame (%s build)\n", w, h, best,
      sd_fast_pick_stages ()->isa);
  sd_temporal_clear (&t);
  free (frame);
  return 0;
}
