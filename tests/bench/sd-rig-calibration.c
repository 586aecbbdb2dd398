/* sd-rig-calibration: writes the synthetic test rig's calibration
 * (tests/support/sd-rig.h: distortion, a 1-degree rotation, 120 mm
 * baseline) as an OpenCV YAML file for width x height, so that the
 * rectification can be timed (sd-bench --calibration) without a camera.
 * usage: sd-rig-calibration WIDTH HEIGHT FILE.yaml */
#include <stdio.h>
#include <stdlib.h>

#include "sd-rig.h"

int
main (int argc, char **argv)
{
  SdStereoCalib calib;
  char msg[256];
  const int w = argc == 4 ? atoi (argv[1]) : 0;
  const int h = argc == 4 ? atoi (argv[2]) : 0;
  if (w < 16 || h < 16) {
    fprintf (stderr, "usage: sd-rig-calibration WIDTH HEIGHT FILE.yaml\n");
    return 2;
  }
  sd_rig_make (&calib, w, h);
  if (!sd_rig_write_opencv_yaml (&calib, argv[3], msg, sizeof (msg))) {
    fprintf (stderr, "sd-rig-calibration: %s\n", msg);
    return 1;
  }
  return 0;
}
