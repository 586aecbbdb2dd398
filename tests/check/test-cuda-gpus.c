/* stereodepth on two GPUs in one process (issue 15, part 4): elements with
 * cuda-device-id 0 and 1, fed at the same time, must each give the CPU's
 * output bit for bit.  Skips (77) unless CUDA devices 0 and 1 both run the
 * backend; their rate together is element-stress soak's to measure. */
#include "sd-check.h"

#define W SD_CHECK_WIDTH
#define H SD_CHECK_HEIGHT
#define N_IMAGES 4

static void
pair_on_device (SdCheckPair * p, gint device)
{
  sd_check_pair_init_with (p, FALSE, "cuda-device-id", device, NULL);
  gst_util_set_object_arg (G_OBJECT (p->element), "backend", "cuda");
}

/* Distinct small pairs pushed to an element on each device in turn (each
 * keeps a pair in flight, so both work at once), every output the CPU's. */
GST_START_TEST (test_small_pairs_on_both)
{
  SdParams params;
  SdCheckImages *images;
  SdCheckPair p[2];
  guint i, d;

  sd_check_params (&params);
  images = sd_check_images_new (&params, N_IMAGES);
  for (d = 0; d < 2; d++) {
    pair_on_device (&p[d], d);
    sd_check_set_caps (p[d].left, "GRAY8", W, H);
    sd_check_set_caps (p[d].right, "GRAY8", W, H);
  }
  for (i = 0; i < N_IMAGES; i++)
    for (d = 0; d < 2; d++)
      sd_check_push_images (&p[d], &images[(i + d) % N_IMAGES],
          i * SD_CHECK_FRAME);
  for (d = 0; d < 2; d++) {
    sd_check_finish (&p[d]);
    for (i = 0; i < N_IMAGES; i++)
      sd_check_expect_output (&p[d], i * SD_CHECK_FRAME,
          images[(i + d) % N_IMAGES].ref);
    sd_check_pair_clear (&p[d]);
  }
  sd_check_images_free (images, N_IMAGES);
}

GST_END_TEST;

/* Larger frames through the kernels the small ones do not reach: 640x480
 * at 128 disparities, and 2560 wide at 160, where the six vertical and
 * diagonal directions run a row at a time (cooperative launches whose
 * blocks wait on each other: one device's must not meet the other's). */
static void
check_large (gint width, gint height, gint disparities)
{
  SdSynthPair big;
  SdParams params;
  SdCheckPair p[2];
  guint16 *ref;
  guint d;

  fail_unless (sd_synth_demo (&big, width, height));
  sd_check_params (&params);
  params.num_disparities = disparities;
  ref = sd_check_reference (&params, big.left, big.right, width, height);
  for (d = 0; d < 2; d++) {
    pair_on_device (&p[d], d);
    g_object_set (p[d].element, "num-disparities", disparities, NULL);
    sd_check_set_caps (p[d].left, "GRAY8", width, height);
    sd_check_set_caps (p[d].right, "GRAY8", width, height);
    fail_unless_equals_int (sd_check_push_sized (&p[d], big.left, big.right,
            width, height, 0), GST_FLOW_OK);
  }
  for (d = 0; d < 2; d++) {
    GstBuffer *buf;

    sd_check_finish (&p[d]);
    buf = gst_harness_pull (p[d].left);
    fail_unless (buf != NULL, "no output from device %u", d);
    sd_check_assert_output (buf, ref, width, height);
    gst_buffer_unref (buf);
    sd_check_pair_clear (&p[d]);
  }
  g_free (ref);
  sd_synth_free (&big);
}

GST_START_TEST (test_large_frames_on_both)
{
  check_large (640, 480, 128);
  check_large (2560, 40, 160);
}

GST_END_TEST;

/* cuda-device-id changed while playing moves the element to the other
 * GPU: the pair in flight finishes on the first, the next runs on the
 * second, both the CPU's. */
GST_START_TEST (test_device_change_while_playing)
{
  SdParams params;
  SdCheckImages *images;
  SdCheckPair p;
  guint i;

  sd_check_params (&params);
  images = sd_check_images_new (&params, N_IMAGES);
  pair_on_device (&p, 0);
  sd_check_set_caps (p.left, "GRAY8", W, H);
  sd_check_set_caps (p.right, "GRAY8", W, H);
  for (i = 0; i < N_IMAGES; i++) {
    if (i == N_IMAGES / 2)
      g_object_set (p.element, "cuda-device-id", 1, NULL);
    sd_check_push_images (&p, &images[i], i * SD_CHECK_FRAME);
  }
  sd_check_finish (&p);
  for (i = 0; i < N_IMAGES; i++)
    sd_check_expect_output (&p, i * SD_CHECK_FRAME, images[i].ref);
  sd_check_pair_clear (&p);
  sd_check_images_free (images, N_IMAGES);
}

GST_END_TEST;

static Suite *
gpus_suite (void)
{
  Suite *s = suite_create ("stereodepth-cuda-gpus");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, sd_check_scene_setup, sd_check_scene_teardown);
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_small_pairs_on_both);
  tcase_add_test (tc, test_large_frames_on_both);
  tcase_add_test (tc, test_device_change_while_playing);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  if (!sd_check_cuda_device_ready (1))
    return 77;
  return gst_check_run_suite (gpus_suite (), "stereodepth-cuda-gpus",
      __FILE__);
}
