/* stereorectify and GStreamer's CUDA memory (gststereorectifycuda.h).
 *
 * A device pointer of CUDA memory is valid only in the GstCudaContext that
 * made it, so the element finds the context its neighbours use (or makes
 * one and shares it), takes its output buffers from a CUDA pool of that
 * context and remaps in it.  Frames of another context, or of several
 * memories, go through the host as before: slower, the same bits. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#define GST_USE_UNSTABLE_API
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "gststereodepthcuda.h"
#include "gststereorectifycuda.h"
#include "sd-cuda.h"

GST_DEBUG_CATEGORY_EXTERN (gst_stereo_rectify_debug);
#define GST_CAT_DEFAULT gst_stereo_rectify_debug

/* any device: the one whose frames come in */
#define ANY_DEVICE -1

static GstCudaContext **
context_slot (GstStereoRectify * self)
{
  return (GstCudaContext **) & self->cuda_context;
}

gboolean
gst_stereo_rectify_cuda_query (GstStereoRectify * self, GstQuery * query)
{
  return GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && gst_cuda_handle_context_query (GST_ELEMENT (self), query,
      *context_slot (self));
}

void
gst_stereo_rectify_cuda_set_context (GstStereoRectify * self,
    GstContext * context)
{
  gst_cuda_handle_set_context (GST_ELEMENT (self), context, ANY_DEVICE,
      context_slot (self));
}

gboolean
gst_stereo_rectify_cuda_set_caps (GstStereoRectify * self, GstCaps * caps)
{
  if (!gst_stereo_depth_cuda_caps (caps)
      || gst_cuda_ensure_element_context (GST_ELEMENT (self), ANY_DEVICE,
          context_slot (self)))
    return TRUE;
  GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
      ("No CUDA context: the frames are in CUDA memory, but GStreamer's "
          "CUDA library found no usable device."), (NULL));
  return FALSE;
}

/* A CUDA pool of the element's context for caps, configured: pool when it
 * is one, else a new one; its buffer size (rows padded) in *size. */
static GstBufferPool *
cuda_pool (GstStereoRectify * self, GstBufferPool * pool, GstCaps * caps,
    guint * size, guint min, guint max)
{
  GstCudaContext *context = *context_slot (self);
  GstVideoInfo info;
  GstStructure *config;

  if (pool && !(GST_IS_CUDA_BUFFER_POOL (pool)
          && GST_CUDA_BUFFER_POOL (pool)->context == context))
    gst_clear_object (&pool);
  if (!pool)
    pool = gst_cuda_buffer_pool_new (context);
  gst_video_info_from_caps (&info, caps);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_add_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&info),
      min, max);
  gst_buffer_pool_set_config (pool, config);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, size, NULL, NULL);
  gst_structure_free (config);
  return pool;
}

gboolean
gst_stereo_rectify_cuda_decide_allocation (GstStereoRectify * self,
    GstQuery * query)
{
  GstBufferPool *pool = NULL;
  GstCaps *caps;
  guint size = 0, min = 0, max = 0;
  const gboolean update = gst_query_get_n_allocation_pools (query) > 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!gst_stereo_depth_cuda_caps (caps) || !*context_slot (self))
    return FALSE;
  if (update)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  pool = cuda_pool (self, pool, caps, &size, min, max);
  if (update)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

gboolean
gst_stereo_rectify_cuda_propose_allocation (GstStereoRectify * self,
    GstQuery * query)
{
  GstCaps *caps;
  gboolean need_pool;
  guint size = 0;

  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!gst_stereo_depth_cuda_caps (caps) || !*context_slot (self))
    return FALSE;
  if (need_pool && gst_query_get_n_allocation_pools (query) == 0) {
    GstBufferPool *pool = cuda_pool (self, NULL, caps, &size, 0, 0);

    gst_query_add_allocation_pool (query, pool, size, 0, 0);
    gst_object_unref (pool);
  }
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
}

/* Whether buffer is one memory of CUDA memory in context. */
static gboolean
on_device (GstCudaContext * context, GstBuffer * buffer)
{
  GstMemory *mem;

  if (gst_buffer_n_memory (buffer) != 1)
    return FALSE;
  mem = gst_buffer_peek_memory (buffer, 0);
  return gst_is_cuda_memory (mem)
      && GST_CUDA_MEMORY_CAST (mem)->context == context;
}

gboolean
gst_stereo_rectify_cuda_transform (GstStereoRectify * self, GstBuffer * in,
    GstBuffer * out, GstFlowReturn * ret)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  GstCudaContext *context = *context_slot (self);
  SdRemapPart parts[SD_REMAP_MAX_PARTS];
  GstVideoFrame inf, outf;
  SdError err = { 0 };
  SdStatus status;

  if (!context || !on_device (context, in) || !on_device (context, out)) {
    GST_LOG_OBJECT (self, "remapped on the host: the frames are not both "
        "CUDA memory of context %" GST_PTR_FORMAT, context);
    return FALSE;
  }
  if (!gst_video_frame_map (&inf, &filter->in_info, in,
          GST_MAP_READ | GST_MAP_CUDA)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Could not read a frame: it is smaller than its caps say."), (NULL));
    *ret = GST_FLOW_ERROR;
    return TRUE;
  }
  if (!gst_video_frame_map (&outf, &filter->out_info, out,
          GST_MAP_WRITE | GST_MAP_CUDA)) {
    gst_video_frame_unmap (&inf);
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not write the output frame."), (NULL));
    *ret = GST_FLOW_ERROR;
    return TRUE;
  }
  for (gint i = 0; i < self->n_parts; i++) {
    const GstStereoRectifyPart *part = &self->parts[i];

    parts[i] = (SdRemapPart) {
      .map = part->map,
      .src = gst_stereo_rectify_part_src (part, &inf),
      .dst = gst_stereo_rectify_part_dst (part, &outf),
      .src_stride = GST_VIDEO_FRAME_PLANE_STRIDE (&inf, part->plane),
      .dst_stride = GST_VIDEO_FRAME_PLANE_STRIDE (&outf, part->plane),
      .pixel_stride = part->pixel_stride,
      .depth = part->depth,
      .shift = part->shift,
      .width = part->width,
      .height = part->height,
    };
  }
  if (gst_cuda_context_push (context)) {
    if (!self->cuda_remap)
      self->cuda_remap = sd_cuda_remap_new (&err);
    status = self->cuda_remap ? sd_cuda_remap (self->cuda_remap, parts,
        self->n_parts, &err) : err.status;
    gst_cuda_context_pop (NULL);
  } else {
    status = sd_error_set (&err, SD_ERROR_BACKEND,
        "Could not make the CUDA context current.");
  }
  gst_video_frame_unmap (&outf);
  gst_video_frame_unmap (&inf);
  if (status != SD_OK) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("%s", err.message), (NULL));
    *ret = GST_FLOW_ERROR;
    return TRUE;
  }
  *ret = GST_FLOW_OK;
  return TRUE;
}

void
gst_stereo_rectify_cuda_clear_maps (GstStereoRectify * self)
{
  GstCudaContext *context = *context_slot (self);

  if (!self->cuda_remap)
    return;
  /* made in this context, which is dropped only after it */
  if (context && gst_cuda_context_push (context)) {
    sd_cuda_remap_free (self->cuda_remap);
    gst_cuda_context_pop (NULL);
  } else {
    GST_WARNING_OBJECT (self, "the maps' copies on the device are lost: "
        "their CUDA context could not be made current");
  }
  self->cuda_remap = NULL;
}

void
gst_stereo_rectify_cuda_reset (GstStereoRectify * self)
{
  gst_stereo_rectify_cuda_clear_maps (self);
  gst_clear_object (context_slot (self));
}
