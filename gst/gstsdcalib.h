/* Reading a rig's calibration files for an element (stereodepth,
 * stereorectify): the files their calibration and calibration-right
 * properties name, with errors a user can act on. */
#ifndef __GST_SD_CALIB_H__
#define __GST_SD_CALIB_H__

#include <gst/gst.h>

#include "sd-calib.h"

G_BEGIN_DECLS

/* Reads the calibration path (and right_path, a ROS pair's right camera)
 * into a new *calib (g_free it).  FALSE after posting an error on element
 * that names the file and the key, or right_path without path.  Neither
 * file: TRUE, and *calib NULL. */
gboolean gst_sd_calib_read (GstElement * element, const gchar * path,
    const gchar * right_path, SdStereoCalib ** calib);

G_END_DECLS

#endif
