/* Helpers shared by the element tests: input frames in any accepted video
 * format, the engine's own answer for them, and a two-pad harness around
 * stereodepth. */
#ifndef SD_CHECK_H
#define SD_CHECK_H

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "sd-engine.h"
#include "sd-rig.h"
#include "sd-synth.h"

#define SD_CHECK_WIDTH 64
#define SD_CHECK_HEIGHT 48
#define SD_CHECK_DISPARITIES 16
#define SD_CHECK_FRAME (GST_SECOND / 30)

/* The test scene (sd_synth_demo at the test size), made by
 * sd_check_scene_setup, a checked fixture. */
extern SdSynthPair sd_check_scene;
void sd_check_scene_setup (void);
void sd_check_scene_teardown (void);

/* The synthetic calibrated rig (tests/support/sd-rig.h) at width x
 * height: its calibration as OpenCV YAML in a file of its own (path), and
 * the raw, distorted views its cameras see (GRAY8, packed). */
typedef struct
{
  gchar *dir, *path;
  SdStereoCalib calib;
  SdRigScene scene;
  guint8 *raw[2];
} SdCheckRig;

void sd_check_rig_setup (SdCheckRig * rig, gint width, gint height);
void sd_check_rig_clear (SdCheckRig * rig);

/* Every input format stereodepth accepts, as its sink_right pad template
 * lists them in system memory; *n gets their number.  Owned by the
 * caller. */
GstVideoFormat *sd_check_formats (guint * n);

/* stereodepth with its left pad (and src) in left, its right pad in right;
 * bus receives the element's messages. */
typedef struct
{
  GstElement *element;
  GstHarness *left;
  GstHarness *right;
  GstBus *bus;
} SdCheckPair;

void sd_check_pair_init (SdCheckPair * pair, gboolean live);
/* The same, with properties set on the element before it starts (those
 * read when it starts, such as calibration): NULL-terminated name/value
 * pairs as g_object_set takes them. */
void sd_check_pair_init_with (SdCheckPair * pair, gboolean live,
    const gchar * first_property, ...) G_GNUC_NULL_TERMINATED;
/* The same as sd_check_pair_init, with sink_right not linked: right is
 * an empty harness until sd_check_pair_link_right links it. */
void sd_check_pair_init_unlinked_right (SdCheckPair * pair, gboolean live);
void sd_check_pair_link_right (SdCheckPair * pair);
void sd_check_pair_clear (SdCheckPair * pair);
/* A uint64 property of element (frames-processed, frames-dropped, ...). */
guint64 sd_check_get_u64 (GstElement * element, const gchar * name);
/* Waits (10 s at most) for an error message on bus and returns its GError
 * (g_error_free it); fails the test when none comes. */
GError *sd_check_wait_error (GstBus * bus);
/* Waits for an error on bus whose message holds what, and what2 when it
 * is not NULL. */
void sd_check_expect_error (GstBus * bus, const gchar * what,
    const gchar * what2);
/* An element of factory with the calibration and calibration-right files
 * given (read when it starts) fails to start, with an error naming
 * what. */
void sd_check_start_fails (const gchar * factory, const gchar * calibration,
    const gchar * right, const gchar * what);
/* Pops the one warning the element posts when it cuts frames height rows
 * high into bands because they do not fit memory (its message names
 * memory: "the GPU's memory", "the memory"), and returns the band rows it
 * names; fails the test when there is none, the rows are not a band of
 * the frame, or a second warning follows. */
gint sd_check_pop_band_warning (GstBus * bus, const gchar * memory,
    gint height);

/* Sends caps (format, size, 30/1) to one side of the pair. */
void sd_check_set_caps (GstHarness * h, const gchar * format, gint width,
    gint height);

/* A frame of format whose luma is gray (width * height bytes), in a buffer
 * with padded rows described by a GstVideoMeta, so that the element has to
 * honour strides and offsets. */
GstBuffer *sd_check_frame_new (GstVideoFormat format, const guint8 * gray,
    gint width, gint height, GstClockTime pts);

/* The disparity SdEngine (CPU) computes for two GRAY8 images, packed rows;
 * free with g_free. */
guint16 *sd_check_reference (const SdParams * params, const guint8 * left,
    const guint8 * right, gint width, gint height);
/* The same, and when confidence is not NULL the confidence of the pair
 * (params->confidence set for it) in a new GRAY8 image, packed rows. */
guint16 *sd_check_reference_full (const SdParams * params,
    const guint8 * left, const guint8 * right, gint width, gint height,
    guint8 ** confidence);

/* Asserts that a GRAY16_LE output buffer equals the reference pixel by pixel. */
void sd_check_assert_output (GstBuffer * buf, const guint16 * ref,
    gint width, gint height);

/* Runs one GRAY8 pair through an element with backend=auto and returns
 * the backend it says (in its one INFO message) it chose: "cpu" or "cuda";
 * free with g_free. */
gchar *sd_check_auto_backend (const guint8 * left, const guint8 * right);

/* Pushes GRAY8 frames of left and right images (packed) at pts. */
void sd_check_push_pair (SdCheckPair * pair, const guint8 * left,
    const guint8 * right, GstClockTime pts);
/* The same for images of any size; returns the first flow that is not OK
 * (the right frame is not pushed after a left one that failed). */
GstFlowReturn sd_check_push_sized (SdCheckPair * pair, const guint8 * left,
    const guint8 * right, gint width, gint height, GstClockTime pts);
/* One GRAY8 pair of any size through the element from caps to EOS; returns
 * its output. */
GstBuffer *sd_check_run_one (SdCheckPair * pair, const guint8 * left,
    const guint8 * right, gint width, gint height);

/* Sends EOS on both inputs and waits for it on the output, so that every
 * output buffer has arrived. */
void sd_check_finish (SdCheckPair * pair);

/* Pulls the next output buffer and checks its timestamps (a frame of the
 * test rate at pts) and, when ref is not NULL, its content. */
void sd_check_expect_output (SdCheckPair * pair, GstClockTime pts,
    const guint16 * ref);

/* Asserts that buf is what a gap gives: flagged GAP, at pts, every byte 0
 * (no valid disparity, or no confidence). */
void sd_check_assert_gap (GstBuffer * buf, GstClockTime pts);

/* A gap event on either input, or on both, stands for a frame that does
 * not exist (demuxers send them for an empty edit or a lagging track):
 * its pair comes out as a frame flagged GAP with no valid disparity and no
 * confidence, in order with the computed ones; the real frame beside a
 * gap counts as dropped; no error.  On backend, with pairs_in_flight. */
void sd_check_gaps (const gchar * backend, gint pairs_in_flight);

/* Distinct pairs of the test size: the scene with its rows rotated, so
 * that one pair's output cannot pass for another's, each with the CPU
 * engine's disparity under params. */
typedef struct
{
  guint8 left[SD_CHECK_WIDTH * SD_CHECK_HEIGHT];
  guint8 right[SD_CHECK_WIDTH * SD_CHECK_HEIGHT];
  guint16 *ref;
} SdCheckImages;

SdCheckImages *sd_check_images_new (const SdParams * params, guint n);
void sd_check_images_free (SdCheckImages * images, guint n);
void sd_check_push_images (SdCheckPair * pair, const SdCheckImages * images,
    GstClockTime pts);

/* The parameters the element tests run with: small and fast. */
void sd_check_params (SdParams * params);
/* Whether the CUDA backend runs here; prints why not.  When it does, the
 * tests are set to run in this process: CUDA does not survive fork(), and
 * the probe has initialised it. */
gboolean sd_check_cuda_ready (void);
/* The same for CUDA device number device (and every one before it). */
gboolean sd_check_cuda_device_ready (gint device);

/* Frames of any format (tests of stereorectify). */
/* A frame of info's format, every byte random from seed (the padding
 * bytes of RGBx too). */
GstBuffer *sd_check_random_frame (const GstVideoInfo * info, guint32 seed);
/* first and second (w x h frames of format) as one frame, side by side or
 * top-bottom: each plane's rows, or halves of them, copied. */
GstBuffer *sd_check_pack_views (GstVideoFormat format, GstBuffer * first,
    GstBuffer * second, gint w, gint h, gboolean side_by_side);
/* Fails the test unless a and b (w x h frames of format) hold the same
 * samples, plane by plane (what lies past a row's samples aside). */
void sd_check_assert_same_frame (GstBuffer * a, GstBuffer * b,
    GstVideoFormat format, gint w, gint h, const gchar * what);

/* nvcodec's CUDA memory (the tests of frames on the GPU). */
#define SD_CHECK_CUDA_CAPS "video/x-raw(memory:CUDAMemory)"
/* Whether nvcodec's cudaupload is here (loaded, so that its warnings come
 * before gst-check counts them); prints why not. */
gboolean sd_check_cudaupload_available (void);
/* Whether format is one of cudaupload's in CUDA memory. */
gboolean sd_check_cudaupload_gives (GstVideoFormat format);

#endif
