/* Stereo calibration files: what a rig's calibration says about each
 * camera, read from OpenCV's FileStorage output of stereoCalibrate plus
 * stereoRectify (YAML or XML: M1 D1 M2 D2 R1 R2 P1 P2, Q and T where
 * present) or from a pair of ROS camera_info YAML files (K, D, R, P).
 *
 * The model is the one OpenCV's initUndistortRectifyMap documents: a pixel
 * (u, v) of the rectified view j is the ray P_j^-1 (u, v, 1), rotated back
 * by R_j^T into camera j, distorted by the radial-tangential model D_j and
 * projected by K_j into the camera's own image.  sd-rectify.h builds the
 * maps from it. */
#ifndef SD_CALIB_H
#define SD_CALIB_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Distortion terms k1 k2 p1 p2 k3 k4 k5 k6 (OpenCV's order); the ones a file
 * does not give are 0. */
#define SD_CALIB_MAX_DIST 8

typedef struct
{
  double K[9];                  /* camera matrix, row-major */
  double D[SD_CALIB_MAX_DIST];  /* distortion, OpenCV's order */
  int n_dist;                   /* how many the file gave: 4, 5 or 8 */
  double R[9];                  /* rotation into the rectified frame */
  double P[12];                 /* 3x4 projection of the rectified view */
} SdCameraCalib;

typedef struct
{
  SdCameraCalib cam[2];         /* 0 = left, 1 = right */
  /* the image size the calibration was made for; 0 when the file does not
   * say (OpenCV's stereo_calib output does not) */
  int width, height;
  bool has_q;
  double Q[16];                 /* disparity-to-depth matrix, row-major */
  bool has_t;
  double T[3];                  /* X_right = R X_left + T (OpenCV's T) */
  /* millimetres per length unit of the file: OpenCV's files are taken to
   * be in millimetres (the unit of the pattern's square size; 1), ROS's
   * camera_info in metres (1000) */
  double to_mm;
} SdStereoCalib;

/* Reads a calibration.  path is an OpenCV FileStorage file (YAML or XML,
 * told apart by content), or, with right_path not NULL, the left camera's
 * ROS camera_info YAML file and right_path the right camera's.  Returns
 * false with one sentence in msg naming the file and, where it applies, the
 * key (missing key, wrong matrix size, non-numeric data, unreadable or
 * truncated file), and calib all zero.  A file over 1 MiB is refused
 * unread: no calibration is that large, and a wrong path may be a video.
 * Keys the reader does not know are ignored, so OpenCV's other outputs
 * (R, E, F, calibration_time) may stay in the file. */
bool sd_stereo_calib_load (const char *path, const char *right_path,
    SdStereoCalib * calib, char *msg, size_t msg_size);

/* Focal length (pixels) times baseline (millimetres) of the rectified
 * pair, from the right view's projection (P2[3] = -f * B in the file's
 * unit, times to_mm), or 0 when P2 has no translation along x. */
double sd_stereo_calib_focal_baseline (const SdStereoCalib * calib);

#ifdef __cplusplus
}
#endif

#endif
