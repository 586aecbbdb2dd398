/* Reading a rig's calibration files for an element (see gstsdcalib.h). */
#include "gstsdcalib.h"

gboolean
gst_sd_calib_read (GstElement * element, const gchar * path,
    const gchar * right_path, SdStereoCalib ** calib)
{
  SdStereoCalib c;
  char msg[512];

  *calib = NULL;
  if (!path && right_path) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("calibration-right (%s) is set but calibration is not: a ROS pair "
            "needs the left camera's file in calibration.", right_path),
        (NULL));
    return FALSE;
  }
  if (!path)
    return TRUE;
  if (!sd_stereo_calib_load (path, right_path, &c, msg, sizeof (msg))) {
    GST_ELEMENT_ERROR (element, RESOURCE, READ, ("%s", msg), (NULL));
    return FALSE;
  }
  *calib = g_memdup2 (&c, sizeof (c));
  GST_INFO_OBJECT (element, "calibration from %s%s%s (%dx%d)", path,
      right_path ? " and " : "", right_path ? right_path : "", c.width,
      c.height);
  return TRUE;
}
