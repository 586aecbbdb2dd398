/* stereodepth's calibration: the calibration and calibration-right files
 * read when the element starts, and the undistort-and-rectify maps the
 * engine runs first, built for the view size. */
#ifndef __GST_STEREO_DEPTH_CALIB_H__
#define __GST_STEREO_DEPTH_CALIB_H__

#include "gststereodepth.h"

G_BEGIN_DECLS

/* Reads the files the properties name (none: nothing to do); FALSE after
 * posting an error that names the file and the key. */
gboolean gst_stereo_depth_calib_load (GstStereoDepth * self);
void gst_stereo_depth_calib_clear (GstStereoDepth * self);

/* Builds the maps for views of width x height when that size is new;
 * FALSE after posting an error (another aspect ratio). */
gboolean gst_stereo_depth_calib_prepare (GstStereoDepth * self, gint width,
    gint height);

/* The calibration's focal length and baseline for output=depth, which
 * take the place of the focal-length and baseline properties. */
void gst_stereo_depth_calib_params (GstStereoDepth * self, SdParams * p);

/* Hands the maps to the engine when it does not have them yet; FALSE
 * after posting an error. */
gboolean gst_stereo_depth_calib_apply (GstStereoDepth * self);

G_END_DECLS

#endif
