/* libFuzzer target: the calibration reader (OpenCV YAML and XML, ROS
 * camera_info) on arbitrary bytes, as the element reads the files a user
 * names.  The reader takes paths, so each input goes through a file, read
 * once as an OpenCV file and once as both sides of a ROS pair. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sd-calib.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static char path[4096];

static void
path_remove (void)
{
  unlink (path);
}

/* One file for the whole run, under TMPDIR (run-fuzz.sh points it at its
 * work folder, which it removes even after a crash). */
static const char *
path_get (void)
{
  if (path[0])
    return path;
  const char *tmp = getenv ("TMPDIR");
  snprintf (path, sizeof (path), "%s/fuzz-calib-XXXXXX", tmp ? tmp : "/tmp");
  const int fd = mkstemp (path);
  if (fd < 0) {
    perror ("fuzz-calib: mkstemp");
    abort ();
  }
  close (fd);
  atexit (path_remove);
  return path;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  const char *p = path_get ();
  FILE *f = fopen (p, "wb");
  if (!f || fwrite (data, 1, size, f) != size || fclose (f) != 0) {
    perror ("fuzz-calib: writing the input");
    abort ();
  }
  SdStereoCalib calib;
  char msg[256];
  if (sd_stereo_calib_load (p, NULL, &calib, msg, sizeof (msg)))
    (void) sd_stereo_calib_focal_baseline (&calib);
  if (sd_stereo_calib_load (p, p, &calib, msg, sizeof (msg)))
    (void) sd_stereo_calib_focal_baseline (&calib);
  return 0;
}
