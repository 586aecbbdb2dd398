/* The temporal filter: still values pass unchanged, noise within delta is
 * smoothed by exactly alpha, larger changes are taken at once, holes keep
 * their value for persistence frames, and a reset or a new size forgets
 * the past; padded rows are left alone. */
#include <string.h>

#include "sd-temporal.h"
#include "sd-test.h"

/* Runs one value through a 3x2 frame (every pixel the same) and returns
 * the output, checking the frame's other pixels agree. */
static unsigned
step (SdTemporal * t, const SdTemporalParams * p, unsigned in)
{
  uint16_t frame[6];
  for (int i = 0; i < 6; i++)
    frame[i] = (uint16_t) in;
  SD_CHECK (sd_temporal_apply (t, p, frame, 3, 2, 3 * sizeof (uint16_t)),
      "out of memory");
  for (int i = 1; i < 6; i++)
    SD_CHECK_INT (frame[i], frame[0]);
  return frame[0];
}

int sd_test_failures;

int
main (void)
{
  SdTemporal t;
  const SdTemporalParams p = { 128, 16, 0 };    /* alpha 0.5 */

  sd_temporal_init (&t);
  /* the first frame passes; a still value stays */
  SD_CHECK_INT (step (&t, &p, 800), 800);
  SD_CHECK_INT (step (&t, &p, 800), 800);
  /* noise within delta: half of each change, rounded away from zero */
  SD_CHECK_INT (step (&t, &p, 808), 804);
  SD_CHECK_INT (step (&t, &p, 800), 802);
  SD_CHECK_INT (step (&t, &p, 803), 803);       /* +1 * 0.5 rounds to +1 */
  SD_CHECK_INT (step (&t, &p, 802), 802);       /* -1 * 0.5 rounds to -1 */
  SD_CHECK_INT (step (&t, &p, 818), 810);       /* delta itself is smoothed */
  /* more than delta: taken at once */
  SD_CHECK_INT (step (&t, &p, 827), 827);
  SD_CHECK_INT (step (&t, &p, 400), 400);
  /* no persistence: a hole is a hole, and the value after it passes */
  SD_CHECK_INT (step (&t, &p, 0), 0);
  SD_CHECK_INT (step (&t, &p, 410), 410);

  /* persistence 2: the last value for two frames of holes, then none */
  const SdTemporalParams hold = { 128, 16, 2 };
  SD_CHECK_INT (step (&t, &hold, 0), 410);
  SD_CHECK_INT (step (&t, &hold, 0), 410);
  SD_CHECK_INT (step (&t, &hold, 0), 0);
  SD_CHECK_INT (step (&t, &hold, 0), 0);
  /* a value in between restarts the count, and is smoothed against the
   * held one */
  SD_CHECK_INT (step (&t, &hold, 420), 420);
  SD_CHECK_INT (step (&t, &hold, 0), 420);
  SD_CHECK_INT (step (&t, &hold, 424), 422);
  SD_CHECK_INT (step (&t, &hold, 0), 422);
  SD_CHECK_INT (step (&t, &hold, 0), 422);
  SD_CHECK_INT (step (&t, &hold, 0), 0);

  /* alpha 256 keeps nothing of the past */
  const SdTemporalParams off = { 256, 65535, 0 };
  SD_CHECK_INT (step (&t, &off, 100), 100);
  SD_CHECK_INT (step (&t, &off, 65535), 65535);
  SD_CHECK_INT (step (&t, &off, 1), 1);

  /* a reset forgets: the next frame passes unchanged */
  SD_CHECK_INT (step (&t, &p, 500), 500);
  SD_CHECK_INT (step (&t, &p, 510), 505);
  sd_temporal_reset (&t);
  SD_CHECK_INT (step (&t, &p, 510), 510);

  /* another size starts a new history; each pixel has its own, and the
   * padding between rows is not touched */
  enum { W = 4, H = 3, STRIDE = W + 2 };
  uint16_t frame[H * STRIDE];
  for (int i = 0; i < H * STRIDE; i++)
    frame[i] = (uint16_t) (1000 + i);
  SD_CHECK (sd_temporal_apply (&t, &p, frame, W, H, STRIDE * 2), "apply");
  for (int i = 0; i < H * STRIDE; i++)
    SD_CHECK_INT (frame[i], 1000 + i);
  for (int i = 0; i < H * STRIDE; i++)
    frame[i] = (uint16_t) (1000 + i + (i % STRIDE < W ? 2 * (i % 3) : 77));
  SD_CHECK (sd_temporal_apply (&t, &p, frame, W, H, STRIDE * 2), "apply");
  for (int y = 0; y < H; y++)
    for (int x = 0; x < STRIDE; x++) {
      const int i = y * STRIDE + x;
      SD_CHECK_INT (frame[i], 1000 + i + (x < W ? i % 3 : 77));
    }

  sd_temporal_clear (&t);
  return sd_test_exit ("test-temporal");
}
