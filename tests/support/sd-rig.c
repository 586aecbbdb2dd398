#include "sd-rig.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* the rig's pose: the right camera's rotation (Rodrigues vector, about 0.95
 * degrees) and position, X_right = R * X_left + T as OpenCV has it */
static const double rig_rvec[3] = { 0.009, -0.012, 0.007 };
static const double rig_t[3] = { -120.0, 1.2, -1.8 };

/* the rectified focal length relative to the cameras' mean fy: at 1 the
 * right rectified view would reach 3.6 pixels (at 640 wide) past its raw
 * image, where the rotations and the off-centre principal point push it;
 * 1.03 keeps both views 5 pixels inside */
#define RIG_FOCAL_SCALE 1.03

static void
mat3_mul (const double *a, const double *b, double *out)
{
  double r[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      r[i * 3 + j] = a[i * 3] * b[j] + a[i * 3 + 1] * b[3 + j]
          + a[i * 3 + 2] * b[6 + j];
  memcpy (out, r, sizeof (r));
}

static void
mat3_apply (const double *m, const double *v, double *out)
{
  double r[3];
  for (int i = 0; i < 3; i++)
    r[i] = m[i * 3] * v[0] + m[i * 3 + 1] * v[1] + m[i * 3 + 2] * v[2];
  memcpy (out, r, sizeof (r));
}

static void
mat3_transpose (const double *m, double *out)
{
  double r[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      r[i * 3 + j] = m[j * 3 + i];
  memcpy (out, r, sizeof (r));
}

static void
rodrigues (const double *rvec, double *R)
{
  double theta = sqrt (rvec[0] * rvec[0] + rvec[1] * rvec[1]
      + rvec[2] * rvec[2]);
  if (theta < 1e-300) {
    static const double eye[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    memcpy (R, eye, sizeof (eye));
    return;
  }
  double k[3] = { rvec[0] / theta, rvec[1] / theta, rvec[2] / theta };
  double c = cos (theta), s = sin (theta), v = 1 - c;
  R[0] = c + v * k[0] * k[0];
  R[1] = v * k[0] * k[1] - s * k[2];
  R[2] = v * k[0] * k[2] + s * k[1];
  R[3] = v * k[1] * k[0] + s * k[2];
  R[4] = c + v * k[1] * k[1];
  R[5] = v * k[1] * k[2] - s * k[0];
  R[6] = v * k[2] * k[0] - s * k[1];
  R[7] = v * k[2] * k[1] + s * k[0];
  R[8] = c + v * k[2] * k[2];
}

static void
camera_make (SdCameraCalib * cam, double fx, double cx, double cy,
    const double *dist)
{
  memset (cam, 0, sizeof (*cam));
  cam->K[0] = fx;
  cam->K[2] = cx;
  cam->K[4] = fx * 1.002;
  cam->K[5] = cy;
  cam->K[8] = 1;
  memcpy (cam->D, dist, 5 * sizeof (double));
  cam->n_dist = 5;
}

void
sd_rig_make (SdStereoCalib * calib, int width, int height)
{
  static const double dist_left[5] = { -0.12, 0.05, 0.0008, -0.0005, -0.01 };
  static const double dist_right[5] = { -0.115, 0.046, -0.0006, 0.0004,
    -0.008
  };
  /* offsets scale with the image so that the rig is one rig at every size */
  double px = width / 640.0;
  double mx = (width - 1) / 2.0, my = (height - 1) / 2.0;

  memset (calib, 0, sizeof (*calib));
  calib->width = width;
  calib->height = height;
  calib->to_mm = 1;
  camera_make (&calib->cam[0], 0.9 * width, mx + 4.2 * px, my - 3.1 * px,
      dist_left);
  camera_make (&calib->cam[1], 0.905 * width, mx - 2.6 * px, my + 2.3 * px,
      dist_right);

  /* Bouguet, as stereoRectify does it: turn each camera half of the way
   * towards the other, which leaves the views parallel... */
  double half[3] = { -0.5 * rig_rvec[0], -0.5 * rig_rvec[1],
    -0.5 * rig_rvec[2]
  };
  double r_r[9], r_rt[9], t[3];
  rodrigues (half, r_r);
  mat3_transpose (r_r, r_rt);
  mat3_apply (r_r, rig_t, t);

  /* ...then turn both so that the baseline is the x axis, about t x e_x
   * by the angle between them */
  double nt = sqrt (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
  double ux = t[0] > 0 ? 1 : -1;
  double ww[3] = { 0, t[2] * ux, -t[1] * ux };
  double nw = sqrt (ww[1] * ww[1] + ww[2] * ww[2]);
  double wR[9];
  if (nw > 0) {
    double s = acos (fabs (t[0]) / nt) / nw;
    ww[1] *= s;
    ww[2] *= s;
  }
  rodrigues (ww, wR);
  mat3_mul (wR, r_rt, calib->cam[0].R);
  mat3_mul (wR, r_r, calib->cam[1].R);

  double t_new[3];
  mat3_apply (calib->cam[1].R, rig_t, t_new);
  double f = RIG_FOCAL_SCALE * 0.5 * (calib->cam[0].K[4] + calib->cam[1].K[4]);
  for (int j = 0; j < 2; j++) {
    double *P = calib->cam[j].P;
    P[0] = f;
    P[2] = mx;
    P[5] = f;
    P[6] = my;
    P[10] = 1;
  }
  calib->cam[1].P[3] = t_new[0] * f;

  calib->has_t = true;
  memcpy (calib->T, rig_t, sizeof (rig_t));
  calib->has_q = true;
  double *Q = calib->Q;
  Q[0] = 1;
  Q[3] = -mx;
  Q[5] = 1;
  Q[7] = -my;
  Q[11] = f;
  Q[14] = -1 / t_new[0];
  /* (cx1 - cx2) / Tx: the principal points are the same */
  Q[15] = 0;
}

/* the plane turned about the vertical axis: 1.3 m at its left edge
 * (x_n = 0.04), 1.6 m at its right (x_n = 0.36) */
#define TURNED_A ((1 / 1600.0 - 1 / 1300.0) / (0.36 - 0.04))

void
sd_rig_scene_make (SdRigScene * scene, const SdStereoCalib * calib)
{
  static const SdRigPlane planes[] = {
    {0, 0, 1 / 4000.0, 0, 0, 0, 0},
    {0, 0, 1 / 2000.0, -0.38, -0.22, -0.08, 0.3},
    {TURNED_A, 0, 1 / 1300.0 - TURNED_A * 0.04, 0.04, -0.28, 0.36, 0.12},
  };
  memset (scene, 0, sizeof (*scene));
  memcpy (scene->planes, planes, sizeof (planes));
  scene->n_planes = 3;
  scene->texel_mm = 1.5 * 4000.0 / calib->cam[0].P[0];
  scene->seed = 2024;
}

/* Undistorts a raw pixel of cam to normalized coordinates by the fixed
 * point iteration of OpenCV's undistortPoints, run until it settles: the
 * renderer must invert the model that the rectification maps apply. */
static void
pixel_undistort (const SdCameraCalib * cam, double u, double v, double *xn,
    double *yn)
{
  const double *K = cam->K, *D = cam->D;
  double y0 = (v - K[5]) / K[4];
  double x0 = (u - K[2] - K[1] * y0) / K[0];
  double x = x0, y = y0;
  for (int it = 0; it < 100; it++) {
    double r2 = x * x + y * y;
    double icdist = (1 + ((D[7] * r2 + D[6]) * r2 + D[5]) * r2)
        / (1 + ((D[4] * r2 + D[1]) * r2 + D[0]) * r2);
    double dx = 2 * D[2] * x * y + D[3] * (r2 + 2 * x * x);
    double dy = D[2] * (r2 + 2 * y * y) + 2 * D[3] * x * y;
    double nx = (x0 - dx) * icdist, ny = (y0 - dy) * icdist;
    double step = fabs (nx - x) + fabs (ny - y);
    x = nx;
    y = ny;
    if (step < 1e-15)
      break;
  }
  *xn = x;
  *yn = y;
}

/* The centre of the rectified view cam in the rectified left frame, where
 * P = K_new [I | t]: C = -K_new^-1 t. */
static void
view_centre (const SdCameraCalib * cam, double *c)
{
  const double *P = cam->P;
  double z = -P[11];
  double y = (-P[7] - P[6] * z) / P[5];
  c[0] = (-P[3] - P[1] * y - P[2] * z) / P[0];
  c[1] = y;
  c[2] = z;
}

/* The plane the ray o + t d meets first, with its point, or -1. */
static int
scene_hit (const SdRigScene * scene, const double *o, const double *d,
    double *hit)
{
  int best = -1;
  double best_t = INFINITY;
  for (int i = 0; i < scene->n_planes; i++) {
    const SdRigPlane *p = &scene->planes[i];
    /* 1/Z = a X/Z + b Y/Z + c is the plane a X + b Y + c Z = 1 */
    double nd = p->a * d[0] + p->b * d[1] + p->c * d[2];
    if (nd == 0)
      continue;
    double t = (1 - p->a * o[0] - p->b * o[1] - p->c * o[2]) / nd;
    if (!(t > 0) || t >= best_t)
      continue;
    double X = o[0] + t * d[0], Y = o[1] + t * d[1], Z = o[2] + t * d[2];
    if (!(Z > 0))
      continue;
    if (p->x1 > p->x0 && !(X >= p->x0 * Z && X < p->x1 * Z
            && Y >= p->y0 * Z && Y < p->y1 * Z))
      continue;
    best = i;
    best_t = t;
    hit[0] = X;
    hit[1] = Y;
    hit[2] = Z;
  }
  return best;
}

static double
hash_unit (int32_t x, int32_t y, uint32_t salt)
{
  uint32_t h = (uint32_t) x * 0x8da6b343u ^ (uint32_t) y * 0xd8163841u ^ salt;
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return h * (1.0 / 4294967296.0);
}

/* Random values on a grid of spacing cell, read bilinearly. */
static double
noise_at (double x, double y, double cell, uint32_t salt)
{
  x /= cell;
  y /= cell;
  double fx = floor (x), fy = floor (y);
  int32_t ix = (int32_t) fx, iy = (int32_t) fy;
  double ax = x - fx, ay = y - fy;
  double top = hash_unit (ix, iy, salt) * (1 - ax)
      + hash_unit (ix + 1, iy, salt) * ax;
  double bottom = hash_unit (ix, iy + 1, salt) * (1 - ax)
      + hash_unit (ix + 1, iy + 1, salt) * ax;
  return top * (1 - ay) + bottom * ay;
}

/* The surface's brightness at world (X, Y) of plane i: fine detail for the
 * matcher, coarse shading so that the image is not one flat grey, and the
 * contrast stretched back since averaging random values narrows them. */
static double
texture_at (const SdRigScene * scene, int i, double X, double Y)
{
  uint32_t salt = scene->seed * 0x9e3779b9u + (uint32_t) i * 0x85ebca6bu;
  double fine = noise_at (X, Y, scene->texel_mm, salt);
  double coarse = noise_at (X, Y, 12 * scene->texel_mm, salt ^ 0x5bd1e995u);
  double v = 0.5 + 1.8 * (0.7 * fine + 0.3 * coarse - 0.5);
  v = v < 0 ? 0 : v > 1 ? 1 : v;
  return 20 + 215 * v;
}

void
sd_rig_render (const SdStereoCalib * calib, const SdRigScene * scene,
    int camera, uint8_t * out, int width, int height)
{
  const SdCameraCalib *cam = &calib->cam[camera];
  double o[3];
  view_centre (cam, o);
  for (int v = 0; v < height; v++) {
    for (int u = 0; u < width; u++) {
      /* a sample that misses every plane counts as black */
      double sum = 0;
      for (int s = 0; s < 4; s++) {
        double xn, yn, d[3], hit[3];
        pixel_undistort (cam, u + ((s & 1) ? 0.25 : -0.25),
            v + ((s & 2) ? 0.25 : -0.25), &xn, &yn);
        double ray[3] = { xn, yn, 1 };
        mat3_apply (cam->R, ray, d);
        int i = scene_hit (scene, o, d, hit);
        if (i >= 0)
          sum += texture_at (scene, i, hit[0], hit[1]);
      }
      out[(size_t) v * width + u] = (uint8_t) lrint (sum / 4);
    }
  }
}

double
sd_rig_depth (const SdStereoCalib * calib, const SdRigScene * scene,
    double u, double v)
{
  const double *P = calib->cam[0].P;
  double o[3] = { 0, 0, 0 }, hit[3];
  double y = (v - P[6]) / P[5];
  double d[3] = { (u - P[2] - P[1] * y) / P[0], y, 1 };
  return scene_hit (scene, o, d, hit) >= 0 ? hit[2] : 0;
}

/* OpenCV writes whole numbers as "1." so that they read back as reals;
 * doing the same keeps strict readers happy. */
static void
write_real (FILE * f, double x)
{
  char buf[40];
  snprintf (buf, sizeof (buf), "%.17g", x);
  if (!strpbrk (buf, ".eEni"))
    strcat (buf, ".");
  fputs (buf, f);
}

static void
write_matrix (FILE * f, const char *name, const double *m, int rows,
    int cols)
{
  fprintf (f, "%s: !!opencv-matrix\n   rows: %d\n   cols: %d\n   dt: d\n"
      "   data: [ ", name, rows, cols);
  for (int i = 0; i < rows * cols; i++) {
    if (i)
      fputs (", ", f);
    write_real (f, m[i]);
  }
  fputs (" ]\n", f);
}

/* Closes f, saying in msg what went wrong while writing path. */
static bool
finish_file (FILE * f, const char *path, char *msg, size_t msg_size)
{
  bool ok = !ferror (f);
  int saved = errno;
  if (fclose (f) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (!ok)
    snprintf (msg, msg_size, "cannot write %s: %s", path, strerror (saved));
  return ok;
}

static FILE *
create_file (const char *path, char *msg, size_t msg_size)
{
  FILE *f = fopen (path, "w");
  if (!f)
    snprintf (msg, msg_size, "cannot create %s: %s", path, strerror (errno));
  return f;
}

/* A ROS matrix: rows, cols and data; scale multiplies the entries listed
 * in scaled (a bit per entry), for P's translation in metres. */
static void
write_ros_matrix (FILE * f, const char *name, const double *m, int rows,
    int cols, unsigned scaled, double scale)
{
  fprintf (f, "%s:\n  rows: %d\n  cols: %d\n  data: [", name, rows, cols);
  for (int i = 0; i < rows * cols; i++) {
    fputs (i ? ", " : "", f);
    write_real (f, (scaled >> i) & 1 ? m[i] * scale : m[i]);
  }
  fputs ("]\n", f);
}

bool
sd_rig_write_ros_yaml (const SdStereoCalib * calib, int camera,
    const char *path, char *msg, size_t msg_size)
{
  const SdCameraCalib *cam = &calib->cam[camera];
  FILE *f = create_file (path, msg, msg_size);
  if (!f)
    return false;
  fprintf (f, "image_width: %d\nimage_height: %d\ncamera_name: %s\n",
      calib->width, calib->height, camera ? "right" : "left");
  write_ros_matrix (f, "camera_matrix", cam->K, 3, 3, 0, 1);
  fputs ("distortion_model: plumb_bob\n", f);
  write_ros_matrix (f, "distortion_coefficients", cam->D, 1, cam->n_dist, 0,
      1);
  write_ros_matrix (f, "rectification_matrix", cam->R, 3, 3, 0, 1);
  /* ROS lengths are metres: the translation column, entries 3, 7, 11 */
  write_ros_matrix (f, "projection_matrix", cam->P, 3, 4, 0x888, 1e-3);
  return finish_file (f, path, msg, msg_size);
}

bool
sd_rig_write_opencv_yaml (const SdStereoCalib * calib, const char *path,
    char *msg, size_t msg_size)
{
  FILE *f = create_file (path, msg, msg_size);
  if (!f)
    return false;
  fprintf (f, "%%YAML:1.0\n---\nimage_width: %d\nimage_height: %d\n",
      calib->width, calib->height);
  for (int j = 0; j < 2; j++) {
    const SdCameraCalib *cam = &calib->cam[j];
    char name[4];
    snprintf (name, sizeof (name), "M%d", j + 1);
    write_matrix (f, name, cam->K, 3, 3);
    snprintf (name, sizeof (name), "D%d", j + 1);
    write_matrix (f, name, cam->D, 1, cam->n_dist);
  }
  write_matrix (f, "R1", calib->cam[0].R, 3, 3);
  write_matrix (f, "R2", calib->cam[1].R, 3, 3);
  write_matrix (f, "P1", calib->cam[0].P, 3, 4);
  write_matrix (f, "P2", calib->cam[1].P, 3, 4);
  if (calib->has_q)
    write_matrix (f, "Q", calib->Q, 4, 4);
  if (calib->has_t)
    write_matrix (f, "T", calib->T, 3, 1);
  return finish_file (f, path, msg, msg_size);
}
