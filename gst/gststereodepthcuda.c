/* stereodepth and GStreamer's CUDA memory (gststereodepthcuda.h).
 *
 * GstCudaContext wraps a CUDA context of its own (cuCtxCreate), and a
 * device pointer of CUDA memory is valid only in the context that made it.
 * So when its inputs carry CUDA memory the element finds the context its
 * neighbours use (or makes one and shares it), makes its engine in that
 * context (SD_DEVICE_CURRENT_CONTEXT) and pushes it around every engine
 * call. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#define GST_USE_UNSTABLE_API
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "gststereodepth.h"
#include "gststereodepthcuda.h"

GST_DEBUG_CATEGORY_EXTERN (gst_stereo_depth_debug);
#define GST_CAT_DEFAULT gst_stereo_depth_debug

static GstCudaContext **
context_slot (GstStereoDepth * self)
{
  return (GstCudaContext **) & self->cuda_context;
}

gboolean
gst_stereo_depth_cuda_query (GstStereoDepth * self, GstQuery * query)
{
  return GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && gst_cuda_handle_context_query (GST_ELEMENT (self), query,
      *context_slot (self));
}

void
gst_stereo_depth_cuda_set_context (GstStereoDepth * self,
    GstContext * context)
{
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = self->cuda_device_id;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_handle_set_context (GST_ELEMENT (self), context, device_id,
      context_slot (self));
}

gboolean
gst_stereo_depth_cuda_caps (const GstCaps * caps)
{
  const GstCapsFeatures *features;

  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  features = gst_caps_get_features (caps, 0);
  return features && gst_caps_features_contains (features,
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

gboolean
gst_stereo_depth_cuda_ensure (GstStereoDepth * self, gint device_id)
{
  if (gst_cuda_ensure_element_context (GST_ELEMENT (self), device_id,
          context_slot (self)))
    return TRUE;
  GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
      ("No CUDA context for device %d: the input is in CUDA memory, but "
          "GStreamer's CUDA library found no usable device.", device_id),
      (NULL));
  return FALSE;
}

void
gst_stereo_depth_cuda_reset (GstStereoDepth * self)
{
  gst_clear_object (context_slot (self));
}

void
gst_stereo_depth_cuda_enter (GstStereoDepth * self)
{
  if (self->engine_in_cuda_context)
    gst_cuda_context_push (*context_slot (self));
}

void
gst_stereo_depth_cuda_leave (GstStereoDepth * self)
{
  if (self->engine_in_cuda_context)
    gst_cuda_context_pop (NULL);
}

G_STATIC_ASSERT (GST_STEREO_DEPTH_MAP_CUDA == GST_MAP_CUDA);

gboolean
gst_stereo_depth_cuda_in_place (GstStereoDepth * self, GstBuffer * buffer)
{
  GstMemory *mem;

  /* several memories go through the host; none (an empty buffer) is no
   * frame, and its map fails with the element's error */
  if (gst_buffer_n_memory (buffer) != 1)
    return FALSE;
  mem = gst_buffer_peek_memory (buffer, 0);
  if (!gst_is_cuda_memory (mem))
    return FALSE;
  /* memory of another context (another device) goes through the host, and
   * so does everything when backend=auto moved to the CPU */
  if (self->engine_in_cuda_context
      && g_str_equal (sd_engine_backend_name (self->engine), "cuda")
      && GST_CUDA_MEMORY_CAST (mem)->context == *context_slot (self))
    return TRUE;
  GST_LOG_OBJECT (self, "CUDA memory of context %" GST_PTR_FORMAT
      " read through the host (the engine: %s, in context %" GST_PTR_FORMAT
      ": %d)", GST_CUDA_MEMORY_CAST (mem)->context,
      sd_engine_backend_name (self->engine), *context_slot (self),
      self->engine_in_cuda_context);
  return FALSE;
}
