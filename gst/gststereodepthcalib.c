/* stereodepth's calibration (see gststereodepthcalib.h). */
#include "gststereodepthcalib.h"
#include "gstsdcalib.h"

GST_DEBUG_CATEGORY_EXTERN (gst_stereo_depth_debug);
#define GST_CAT_DEFAULT gst_stereo_depth_debug

gboolean
gst_stereo_depth_calib_load (GstStereoDepth * self)
{
  gchar *path, *right_path;
  gboolean ok;

  gst_stereo_depth_calib_clear (self);
  GST_OBJECT_LOCK (self);
  path = g_strdup (self->calibration);
  right_path = g_strdup (self->calibration_right);
  GST_OBJECT_UNLOCK (self);

  ok = gst_sd_calib_read (GST_ELEMENT (self), path, right_path,
      &self->calib);
  g_free (path);
  g_free (right_path);
  return ok;
}

void
gst_stereo_depth_calib_clear (GstStereoDepth * self)
{
  g_clear_pointer (&self->calib, g_free);
  g_clear_pointer (&self->rect, sd_rectification_free);
  self->engine_rect_id = 0;
}

gboolean
gst_stereo_depth_calib_prepare (GstStereoDepth * self, gint width,
    gint height)
{
  char msg[512];

  if (!self->calib || (self->rect && self->rect->width == width
          && self->rect->height == height))
    return TRUE;
  g_clear_pointer (&self->rect, sd_rectification_free);
  self->rect = sd_rectification_new (self->calib, width, height, msg,
      sizeof (msg));
  if (!self->rect) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", msg), (NULL));
    return FALSE;
  }
  /* the focal length of this size goes to the engine with the next pair */
  GST_OBJECT_LOCK (self);
  self->params_changed = TRUE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

void
gst_stereo_depth_calib_params (GstStereoDepth * self, SdParams * p)
{
  if (!self->rect || self->rect->focal_length <= 0
      || self->rect->baseline <= 0)
    return;
  p->focal_length = (float) self->rect->focal_length;
  p->baseline = (float) self->rect->baseline;
}

gboolean
gst_stereo_depth_calib_apply (GstStereoDepth * self)
{
  SdError err = { 0 };

  if (!self->rect || self->engine_rect_id == self->rect->id)
    return TRUE;
  if (sd_engine_set_rectification (self->engine, self->rect, &err) != SD_OK) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("%s", err.message),
        ("setting the rectification maps failed"));
    return FALSE;
  }
  self->engine_rect_id = self->rect->id;
  return TRUE;
}
