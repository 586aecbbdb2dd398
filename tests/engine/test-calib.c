/* sd_stereo_calib_load: OpenCV's YAML and XML and a ROS camera_info pair,
 * written here by hand, read back to the exact numbers; and each kind of
 * broken file refused with a sentence that names the file and the key. */
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sd-calib.h"
#include "sd-test.h"

/* The calibration the files below spell out, in C's own spelling: strtod
 * and the compiler both round correctly, so the numbers compare with ==. */
static const double M1[9] = { 701.5, 0, 319.25, 0, 702.75, 241.125, 0, 0, 1 };
static const double D1[5] = { -0.125, 0.0625, 0.001, -0.002, 0.015625 };
static const double M2[9] = { 699.5, 0, 321.5, 0, 698.25, 239.75, 0, 0, 1 };
static const double D2[5] = { -0.25, 0.03125, -0.0005, 0.0025, -0.0078125 };
static const double R1[9] = { 0.9999, -0.001, 0.012, 0.0011, 0.99999,
  -0.0042, -0.012, 0.0042, 0.9999
};
static const double R2[9] = { 0.9998, 0.002, -0.011, -0.0021, 0.99998,
  0.0043, 0.011, -0.0043, 0.9998
};
static const double P1[12] = { 700.25, 0, 310.5, 0, 0, 700.25, 240.5, 0,
  0, 0, 1, 0
};
static const double P2[12] = { 700.25, 0, 310.5, -42015.1, 0, 700.25,
  240.5, 0, 0, 0, 1, 0
};
static const double Q[16] = { 1, 0, 0, -310.5, 0, 1, 0, -240.5, 0, 0, 0,
  700.25, 0, 0, 0.016666, 0
};
static const double T[3] = { -60.0001, 0.25, -0.125 };
/* the 8-term file's */
static const double D1_8[8] = { -0.125, 0.0625, 0.001, -0.002, 0.015625,
  0.5, -0.25, 0.125
};
static const double D2_4[4] = { -0.25, 0.03125, -0.0005, 0.0025 };
/* the ROS pair's projections: fx 700 px, baseline 0.1 m */
static const double ROS_P1[12] = { 700, 0, 310.5, 0, 0, 700, 240.5, 0,
  0, 0, 1, 0
};
static const double ROS_P2[12] = { 700, 0, 310.5, -70, 0, 700, 240.5, 0,
  0, 0, 1, 0
};

/* OpenCV's YAML as FileStorage writes it (cv::Mat data in %.16e or "0."),
 * one key per macro so the broken files below swap one. */
#define OCV_HEAD "%YAML:1.0\n---\n"
#define OCV_MAT(key, rows, cols, data) \
  key ": !!opencv-matrix\n   rows: " #rows "\n   cols: " #cols \
  "\n   dt: d\n   data: [ " data " ]\n"
#define OCV_M1 OCV_MAT ("M1", 3, 3, \
    "7.0150000000000000e+02, 0., 3.1925000000000000e+02, 0.,\n" \
    "       7.0275000000000000e+02, 2.4112500000000000e+02, 0., 0., 1.")
#define OCV_D1 OCV_MAT ("D1", 1, 5, \
    "-1.2500000000000000e-01, 6.2500000000000000e-02, 1.0e-03, -2.e-03,\n" \
    "       1.5625000000000000e-02")
#define OCV_M2 OCV_MAT ("M2", 3, 3, \
    "699.5, 0., 321.5, 0., 698.25, 239.75, 0., 0., 1.")
#define OCV_D2 OCV_MAT ("D2", 1, 5, \
    "-0.25, 0.03125, -5.0e-04, 2.5e-03, -7.8125e-03")
#define OCV_R1 OCV_MAT ("R1", 3, 3, \
    "0.9999, -0.001, 0.012, 0.0011, 0.99999, -0.0042, -0.012, 0.0042,\n" \
    "       0.9999")
#define OCV_R2 OCV_MAT ("R2", 3, 3, \
    "0.9998, 0.002, -0.011, -0.0021, 0.99998, 0.0043, 0.011, -0.0043,\n" \
    "       0.9998")
#define OCV_P1 OCV_MAT ("P1", 3, 4, \
    "700.25, 0., 310.5, 0., 0., 700.25, 240.5, 0., 0., 0., 1., 0.")
#define OCV_P2 OCV_MAT ("P2", 3, 4, \
    "700.25, 0., 310.5, -42015.1, 0., 700.25, 240.5, 0., 0., 0., 1., 0.")
#define OCV_Q OCV_MAT ("Q", 4, 4, \
    "1., 0., 0., -310.5, 0., 1., 0., -240.5, 0., 0., 0., 700.25, 0., 0.,\n" \
    "       1.6666e-02, 0.")
#define OCV_T OCV_MAT ("T", 3, 1, "-60.0001, 0.25, -0.125")
#define OCV_CAMS OCV_M1 OCV_D1 OCV_M2 OCV_D2 OCV_R1 OCV_R2 OCV_P1 OCV_P2
#define OCV_ALL OCV_CAMS OCV_Q OCV_T

/* the same calibration in FileStorage's XML */
#define XML_HEAD "<?xml version=\"1.0\"?>\n<opencv_storage>\n"
#define XML_MAT(key, rows, cols, data) \
  "<" key " type_id=\"opencv-matrix\">\n  <rows>" #rows "</rows>\n" \
  "  <cols>" #cols "</cols>\n  <dt>d</dt>\n  <data>\n    " data \
  "</data></" key ">\n"
#define XML_CAMS \
  XML_MAT ("M1", 3, 3, "7.0150000000000000e+02 0. 3.1925000000000000e+02\n" \
      "    0. 7.0275000000000000e+02 2.4112500000000000e+02 0. 0. 1.") \
  XML_MAT ("D1", 1, 5, "-0.125 0.0625 0.001 -0.002 0.015625") \
  XML_MAT ("M2", 3, 3, "699.5 0. 321.5 0. 698.25 239.75 0. 0. 1.") \
  XML_MAT ("D2", 1, 5, "-0.25 0.03125 -5.0e-04 2.5e-03 -7.8125e-03") \
  XML_MAT ("R1", 3, 3, "0.9999 -0.001 0.012 0.0011 0.99999 -0.0042\n" \
      "    -0.012 0.0042 0.9999") \
  XML_MAT ("R2", 3, 3, "0.9998 0.002 -0.011 -0.0021 0.99998 0.0043\n" \
      "    0.011 -0.0043 0.9998") \
  XML_MAT ("P1", 3, 4, "700.25 0. 310.5 0. 0. 700.25 240.5 0. 0. 0. 1. 0.") \
  XML_MAT ("P2", 3, 4, "700.25 0. 310.5 -42015.1 0. 700.25 240.5 0. 0. 0.\n" \
      "    1. 0.")
#define XML_Q \
  XML_MAT ("Q", 4, 4, "1. 0. 0. -310.5 0. 1. 0. -240.5 0. 0. 0. 700.25 0.\n" \
      "    0. 1.6666e-02 0.")
#define XML_ALL XML_CAMS XML_Q XML_MAT ("T", 3, 1, "-60.0001 0.25 -0.125")
#define XML_TAIL "</opencv_storage>\n"

/* a ROS camera_info pair, as camera_calibration writes it */
#define ROS_SIZE "image_width: 640\nimage_height: 480\n"
#define ROS_MAT(key, rows, cols, data) \
  key ":\n  rows: " #rows "\n  cols: " #cols "\n  data: [" data "]\n"
#define ROS_LEFT_K "camera_name: narrow_stereo/left\n" \
  ROS_MAT ("camera_matrix", 3, 3, "701.5, 0, 319.25, 0, 702.75, 241.125, " \
      "0, 0, 1")
#define ROS_LEFT_REST \
  ROS_MAT ("distortion_coefficients", 1, 5, \
      "-0.125, 0.0625, 0.001, -0.002, 0.015625") \
  ROS_MAT ("rectification_matrix", 3, 3, "0.9999, -0.001, 0.012, 0.0011, " \
      "0.99999, -0.0042, -0.012, 0.0042, 0.9999") \
  ROS_MAT ("projection_matrix", 3, 4, "700, 0, 310.5, 0, 0, 700, 240.5, 0, " \
      "0, 0, 1, 0")
#define ROS_LEFT ROS_LEFT_K "distortion_model: plumb_bob\n" ROS_LEFT_REST
#define ROS_RIGHT "camera_name: narrow_stereo/right\n" \
  ROS_MAT ("camera_matrix", 3, 3, "699.5, 0, 321.5, 0, 698.25, 239.75, " \
      "0, 0, 1") \
  "distortion_model: plumb_bob\n" \
  ROS_MAT ("distortion_coefficients", 1, 5, \
      "-0.25, 0.03125, -0.0005, 0.0025, -0.0078125") \
  ROS_MAT ("rectification_matrix", 3, 3, "0.9998, 0.002, -0.011, -0.0021, " \
      "0.99998, 0.0043, 0.011, -0.0043, 0.9998") \
  ROS_MAT ("projection_matrix", 3, 4, "700, 0, 310.5, -70.0, 0, 700, " \
      "240.5, 0, 0, 0, 1, 0")

#define MAX_FILES 40
static char dir[256];
static char paths[MAX_FILES][320];
static int n_paths;

/* Writes len bytes of text to the temporary folder; the path, kept for
 * the clean-up. */
static const char *
put_bytes (const char *name, const char *text, size_t len)
{
  if (n_paths == MAX_FILES) {
    fprintf (stderr, "test-calib: more than %d files\n", MAX_FILES);
    exit (1);
  }
  char *path = paths[n_paths++];
  snprintf (path, sizeof (paths[0]), "%s/%s", dir, name);
  FILE *f = fopen (path, "wb");
  SD_CHECK (f && fwrite (text, 1, len, f) == len && fclose (f) == 0,
      "cannot write %s", path);
  return path;
}

static const char *
put (const char *name, const char *text)
{
  return put_bytes (name, text, strlen (text));
}

/* text up to where needle's first match after after starts, plus cut more
 * bytes: a file that ends in the middle of a value */
static const char *
put_cut (const char *name, const char *text, const char *after,
    const char *needle, size_t cut)
{
  const char *at = strstr (strstr (text, after), needle);
  return put_bytes (name, text, (size_t) (at - text) + cut);
}

static void
check_values (const char *what, const double *got, const double *want,
    int n)
{
  for (int i = 0; i < n; i++)
    SD_CHECK (got[i] == want[i], "%s[%d] = %.17g, expected %.17g", what, i,
        got[i], want[i]);
}

static void
check_camera (const char *what, const SdCameraCalib * cam, const double *K,
    const double *D, int n_dist, const double *R, const double *P)
{
  char name[64];
  snprintf (name, sizeof (name), "%s K", what);
  check_values (name, cam->K, K, 9);
  snprintf (name, sizeof (name), "%s D", what);
  SD_CHECK_INT (cam->n_dist, n_dist);
  check_values (name, cam->D, D, n_dist);
  for (int i = n_dist; i < SD_CALIB_MAX_DIST; i++)
    SD_CHECK (cam->D[i] == 0, "%s D[%d] = %g, expected 0", what, i,
        cam->D[i]);
  snprintf (name, sizeof (name), "%s R", what);
  check_values (name, cam->R, R, 9);
  snprintf (name, sizeof (name), "%s P", what);
  check_values (name, cam->P, P, 12);
}

/* The OpenCV calibration above, image size as given. */
static void
expect_opencv (const char *what, const char *path, int width, int height)
{
  SdStereoCalib c;
  char msg[512] = "";
  SD_CHECK (sd_stereo_calib_load (path, NULL, &c, msg, sizeof (msg)),
      "%s: %s", what, msg);
  char name[64];
  snprintf (name, sizeof (name), "%s left", what);
  check_camera (name, &c.cam[0], M1, D1, 5, R1, P1);
  snprintf (name, sizeof (name), "%s right", what);
  check_camera (name, &c.cam[1], M2, D2, 5, R2, P2);
  SD_CHECK (c.has_q, "%s: no Q", what);
  snprintf (name, sizeof (name), "%s Q", what);
  check_values (name, c.Q, Q, 16);
  SD_CHECK (c.has_t, "%s: no T", what);
  snprintf (name, sizeof (name), "%s T", what);
  check_values (name, c.T, T, 3);
  SD_CHECK_INT (c.width, width);
  SD_CHECK_INT (c.height, height);
  SD_CHECK (c.to_mm == 1, "%s: to_mm = %g", what, c.to_mm);
  SD_CHECK (sd_stereo_calib_focal_baseline (&c) == 42015.1,
      "%s: focal * baseline = %.17g", what,
      sd_stereo_calib_focal_baseline (&c));
}

/* Refused, with one sentence naming the file at fault (path's, or right
 * where that is the one) and each of the words. */
static void
expect_refused2 (const char *what, const char *path, const char *right_path,
    bool right_at_fault, const char *word1, const char *word2)
{
  SdStereoCalib c;
  char msg[512] = "";
  SD_CHECK (!sd_stereo_calib_load (path, right_path, &c, msg, sizeof (msg)),
      "%s: accepted", what);
  const char *file = right_at_fault ? right_path : path;
  const char *words[] = { strrchr (file, '/') + 1, word1, word2 };
  for (int i = 0; i < 3; i++)
    SD_CHECK (!words[i] || strstr (msg, words[i]), "%s: '%s' does not say %s",
        what, msg, words[i]);
  SD_CHECK (msg[0] && !strchr (msg, '\n'), "%s: '%s' is not one line", what,
      msg);
  SD_CHECK (c.to_mm == 0 && c.cam[0].n_dist == 0,
      "%s: calibration not cleared", what);
}

static void
expect_refused (const char *what, const char *path, const char *right_path,
    const char *word1, const char *word2)
{
  expect_refused2 (what, path, right_path, false, word1, word2);
}

int
main (void)
{
  const char *tmp = getenv ("TMPDIR");
  snprintf (dir, sizeof (dir), "%s/test-calib-XXXXXX", tmp ? tmp : "/tmp");
  if (!mkdtemp (dir)) {
    perror ("test-calib: mkdtemp");
    return 1;
  }

  /* OpenCV YAML: the header OpenCV writes, the proper one, none */
  const char *rig_yaml = put ("rig.yaml", OCV_HEAD OCV_ALL);
  expect_opencv ("rig.yaml", rig_yaml, 0, 0);
  expect_opencv ("%YAML 1.0", put ("proper.yaml", "%YAML 1.0\n---\n"
          OCV_ALL), 0, 0);
  expect_opencv ("no directive", put ("bare.yaml", OCV_ALL
          "imageSize: [ 640, 480 ]\n"), 640, 480);

  /* OpenCV XML */
  const char *rig_xml = put ("rig.xml", XML_HEAD XML_ALL XML_TAIL);
  expect_opencv ("rig.xml", rig_xml, 0, 0);
  expect_opencv ("xml imageSize", put ("size.xml", XML_HEAD XML_ALL
          "<imageSize>\n  640 480</imageSize>\n" XML_TAIL), 640, 480);

  /* a comma-decimal locale, where one is installed, changes nothing */
  if (setlocale (LC_NUMERIC, "de_DE.UTF-8")) {
    expect_opencv ("de_DE rig.yaml", rig_yaml, 0, 0);
    expect_opencv ("de_DE rig.xml", rig_xml, 0, 0);
    setlocale (LC_NUMERIC, "C");
  }

  /* 8 terms on the left, 4 in a column on the right, the size given */
  {
    SdStereoCalib c;
    char msg[512] = "";
    const char *path = put ("rational.yaml", OCV_HEAD OCV_M1
        OCV_MAT ("D1", 1, 8, "-0.125, 0.0625, 0.001, -0.002, 0.015625, 0.5, "
            "-0.25, 0.125")
        OCV_M2 OCV_MAT ("D2", 4, 1, "-0.25, 0.03125, -0.0005, 0.0025")
        OCV_R1 OCV_R2 OCV_P1 OCV_P2 "image_width: 1280\nimage_height: 720\n");
    SD_CHECK (sd_stereo_calib_load (path, NULL, &c, msg, sizeof (msg)),
        "rational.yaml: %s", msg);
    check_camera ("rational left", &c.cam[0], M1, D1_8, 8, R1, P1);
    check_camera ("rational right", &c.cam[1], M2, D2_4, 4, R2, P2);
    SD_CHECK_INT (c.width, 1280);
    SD_CHECK_INT (c.height, 720);
    SD_CHECK (!c.has_q && !c.has_t, "rational.yaml: Q or T without keys");
  }

  /* ROS: a pair, in metres */
  const char *left = put ("left.yaml", ROS_SIZE ROS_LEFT);
  const char *right = put ("right.yaml", ROS_SIZE ROS_RIGHT);
  {
    SdStereoCalib c;
    char msg[512] = "";
    SD_CHECK (sd_stereo_calib_load (left, right, &c, msg, sizeof (msg)),
        "ROS pair: %s", msg);
    check_camera ("ROS left", &c.cam[0], M1, D1, 5, R1, ROS_P1);
    check_camera ("ROS right", &c.cam[1], M2, D2, 5, R2, ROS_P2);
    SD_CHECK_INT (c.width, 640);
    SD_CHECK_INT (c.height, 480);
    SD_CHECK (c.to_mm == 1000, "ROS: to_mm = %g", c.to_mm);
    SD_CHECK (!c.has_q && !c.has_t, "ROS: Q or T");
    SD_CHECK (sd_stereo_calib_focal_baseline (&c) == 70000,
        "ROS: focal * baseline = %.17g", sd_stereo_calib_focal_baseline (&c));
  }

  /* refused */
  expect_refused ("missing key", put ("nop2.yaml", OCV_HEAD OCV_M1 OCV_D1
          OCV_M2 OCV_D2 OCV_R1 OCV_R2 OCV_P1 OCV_Q OCV_T), NULL, "P2", NULL);
  expect_refused ("wrong size", put ("p1.yaml", OCV_HEAD OCV_M1 OCV_D1 OCV_M2
          OCV_D2 OCV_R1 OCV_R2 OCV_MAT ("P1", 3, 3, "1., 0., 0., 0., 1., 0., "
              "0., 0., 1.") OCV_P2), NULL, "P1", "3x3");
  expect_refused ("non-numeric", put ("abc.yaml", OCV_HEAD OCV_M1
          OCV_MAT ("D1", 1, 5, "-0.1, abc, 0., 0., 0.") OCV_M2 OCV_D2
          OCV_R1 OCV_R2 OCV_P1 OCV_P2), NULL, "D1", "abc");
  expect_refused ("1.2.3", put ("dots.yaml", OCV_HEAD OCV_M1
          OCV_MAT ("D1", 1, 5, "-0.1, 1.2.3, 0., 0., 0.") OCV_M2 OCV_D2
          OCV_R1 OCV_R2 OCV_P1 OCV_P2), NULL, "D1", "1.2.3");
  expect_refused ("empty number", put ("empty.yaml", OCV_HEAD OCV_M1
          OCV_MAT ("D1", 1, 5, "-0.1, '', 0., 0., 0.") OCV_M2 OCV_D2
          OCV_R1 OCV_R2 OCV_P1 OCV_P2), NULL, "D1", NULL);
  expect_refused ("count", put ("count.yaml", OCV_HEAD OCV_M1 OCV_D1
          OCV_MAT ("M2", 3, 3, "699.5, 0., 321.5, 0., 698.25, 239.75, 0., 0.")
          OCV_D2 OCV_R1 OCV_R2 OCV_P1 OCV_P2), NULL, "M2", "8");
  expect_refused ("6 terms", put ("d6.yaml", OCV_HEAD OCV_M1
          OCV_MAT ("D1", 1, 6, "0., 0., 0., 0., 0., 0.") OCV_M2 OCV_D2
          OCV_R1 OCV_R2 OCV_P1 OCV_P2), NULL, "D1", "1x6");
  expect_refused ("T 2x2", put ("t.yaml", OCV_HEAD OCV_CAMS OCV_Q
          OCV_MAT ("T", 2, 2, "0., 0., 0., 0.")), NULL, "T", "2x2");
  expect_refused ("truncated yaml", put_cut ("cut.yaml", OCV_HEAD OCV_ALL,
          "P1:", "data: [", 20), NULL, "line", NULL);
  expect_refused ("truncated xml", put_cut ("cut.xml", XML_HEAD XML_ALL
          XML_TAIL, "<P1", "<data>", 20), NULL, "line", NULL);
  expect_refused ("xml count", put ("count.xml", XML_HEAD XML_CAMS
          XML_MAT ("Q", 4, 4, "1. 2.") XML_TAIL), NULL, "Q", "2 numbers");
  expect_refused ("xml root", put ("root.xml", "<?xml version=\"1.0\"?>\n"
          "<storage></storage>\n"), NULL, "opencv_storage", NULL);
  expect_refused ("empty file", put ("blank.yaml", "\n  \n"), NULL, NULL,
      NULL);
  expect_refused ("not a mapping", put ("list.yaml", "- 1\n- 2\n"), NULL,
      NULL, NULL);
  {
    char absent[320];
    snprintf (absent, sizeof (absent), "%s/absent.yaml", dir);
    expect_refused ("missing file", absent, NULL, NULL, NULL);
  }
  {
    /* one byte over the limit, all of it blank */
    const size_t big = (1 << 20) + 1;
    char *blank = malloc (big);
    memset (blank, ' ', big);
    expect_refused ("too large", put_bytes ("big.yaml", blank, big), NULL,
        NULL, NULL);
    free (blank);
  }
  expect_refused2 ("ROS sizes", left, put ("right720.yaml",
          "image_width: 1280\nimage_height: 720\n" ROS_RIGHT), true,
      "image_width", "left.yaml");
  expect_refused ("ROS model", put ("fisheye.yaml", ROS_SIZE ROS_LEFT_K
          "distortion_model: equidistant\n" ROS_LEFT_REST), right,
      "distortion_model", "equidistant");
  expect_refused2 ("ROS missing key", left, put ("nosize.yaml", ROS_RIGHT),
      true, "image_width", NULL);
  /* a ROS file alone is not an OpenCV file with keys missing in silence */
  expect_refused ("ROS alone", left, NULL, "M1", "ROS");

  for (int i = 0; i < n_paths; i++)
    unlink (paths[i]);
  if (rmdir (dir) != 0)
    SD_CHECK (false, "%s is left behind", dir);
  return sd_test_exit ("test-calib");
}
