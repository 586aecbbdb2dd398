/* A synthetic calibrated stereo rig, for tests of rectification and depth.
 *
 * The rig is two cameras with known intrinsics, distortion and pose, and
 * the rectification OpenCV's stereoRectify would give for them (Bouguet's
 * method: both cameras turned half-way towards each other, then the
 * baseline turned onto the x axis).  Its views are rendered raw: distorted
 * and unrectified, as the cameras would deliver them, so that a test can
 * rectify them with the calibration and compare the depth it measures with
 * the scene's.
 *
 * Lengths are millimetres.  The scene lives in the rectified left camera's
 * frame: x right, y down, z forward; the rectified right camera sits at
 * x = B on the same axes, B the baseline. */
#ifndef SD_RIG_H
#define SD_RIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sd-calib.h"

/* A plane of the scene: inverse depth 1/Z = a * x_n + b * y_n + c, with
 * (x_n, y_n) = (X / Z, Y / Z) the rectified left normalized image
 * coordinates, so a fronto-parallel plane at depth Z is a = b = 0, c = 1/Z.
 * It covers x0 <= x_n < x1, y0 <= y_n < y1, or everything when x1 <= x0. */
typedef struct
{
  double a, b, c;
  double x0, y0, x1, y1;
} SdRigPlane;

#define SD_RIG_MAX_PLANES 8

/* Where planes overlap the one nearest to the camera is seen.  The texture
 * is fixed to the world, a different one on each plane, so both views see
 * the same surface. */
typedef struct
{
  SdRigPlane planes[SD_RIG_MAX_PLANES];
  int n_planes;
  double texel_mm;              /* size of the texture's finest detail, > 0 */
  uint32_t seed;                /* picks the texture */
} SdRigScene;

/* A rig for width x height images: T = (-120, 1.2, -1.8) mm (baseline
 * 120.02 mm), a rotation of 0.95 degrees about all three axes, fx about
 * 0.9 width, principal points a few pixels off the centre, barrel
 * distortion (5 terms, a little different in each camera), and, as
 * stereoRectify gives them, R1 R2 P1 P2 Q and T, with one focal length
 * (1.03 times the mean fy, so that the rectified views stay inside the raw
 * images) and the image centre as the principal point of both views;
 * to_mm is 1.  The same rig at every size: its lengths in pixels scale
 * with width. */
void sd_rig_make (SdStereoCalib * calib, int width, int height);

/* A scene for calib: an unbounded background at 4 m, a fronto-parallel
 * rectangle at 2 m on the left and, on the right, a plane turned about the
 * vertical axis from 1.3 m to 1.6 m; disparities span about 0.028 to 0.086
 * of the width (18 to 55 pixels at 640).  The texture's detail is 1.5
 * rectified pixels at the background. */
void sd_rig_scene_make (SdRigScene * scene, const SdStereoCalib * calib);

/* What camera (0 left, 1 right) sees of the scene: raw, distorted,
 * unrectified GRAY8 pixels, width x height with stride width, each the
 * mean of 2 x 2 samples.  Values are 20..235; a ray that meets no plane
 * gives 0. */
void sd_rig_render (const SdStereoCalib * calib, const SdRigScene * scene,
    int camera, uint8_t * out, int width, int height);

/* The true depth (mm) that the rectified left view sees at its pixel
 * (u, v), or 0 where it sees no plane. */
double sd_rig_depth (const SdStereoCalib * calib, const SdRigScene * scene,
    double u, double v);

/* Writes calib as OpenCV's FileStorage YAML (M1 D1 M2 D2 R1 R2 P1 P2 Q T,
 * image_width and image_height) with full double precision.  Lengths are
 * written as calib has them: sd_rig_make's are millimetres, the unit
 * OpenCV's files are read in.  Returns false with one sentence in msg on
 * an I/O error. */
bool sd_rig_write_opencv_yaml (const SdStereoCalib * calib, const char *path,
    char *msg, size_t msg_size);

/* Writes camera (0 left, 1 right) of calib as a ROS camera_info YAML file
 * (image size, camera_matrix, plumb_bob distortion_coefficients,
 * rectification_matrix, projection_matrix with its translation in metres,
 * as ROS has it); false with one sentence in msg on an I/O error. */
bool sd_rig_write_ros_yaml (const SdStereoCalib * calib, int camera,
    const char *path, char *msg, size_t msg_size);

#endif
