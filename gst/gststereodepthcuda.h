/* stereodepth and GStreamer's CUDA memory: the GstCudaContext it shares
 * with nvcodec's elements (cudaupload, nvh264dec, ...) through GstContext,
 * and frames in `memory:CUDAMemory` read in place on the GPU.
 *
 * Built only with the CUDA backend and GStreamer's CUDA library
 * (HAVE_GST_CUDA); without them the element takes system memory alone and
 * these functions do nothing. */
#ifndef __GST_STEREO_DEPTH_CUDA_H__
#define __GST_STEREO_DEPTH_CUDA_H__

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

typedef struct _GstStereoDepth GstStereoDepth;

#ifdef HAVE_GST_CUDA

/* Handles a context query with the element's GstCudaContext; FALSE when
 * the query is not one for it. */
gboolean gst_stereo_depth_cuda_query (GstStereoDepth * self, GstQuery * query);
/* Takes a GstCudaContext a neighbour or the application shares. */
void gst_stereo_depth_cuda_set_context (GstStereoDepth * self,
    GstContext * context);
/* Whether caps carry CUDA memory. */
gboolean gst_stereo_depth_cuda_caps (const GstCaps * caps);
/* Finds (context query, then message) or makes the GstCudaContext for
 * device_id; FALSE with an element error when there is none. */
gboolean gst_stereo_depth_cuda_ensure (GstStereoDepth * self, gint device_id);
/* Drops the context (element stopped). */
void gst_stereo_depth_cuda_reset (GstStereoDepth * self);
/* The engine's calls run with the element's context current while the
 * engine was made in it: enter before, leave after. */
void gst_stereo_depth_cuda_enter (GstStereoDepth * self);
void gst_stereo_depth_cuda_leave (GstStereoDepth * self);
/* Whether the engine can read buffer where it is: CUDA memory of the
 * element's context, and the engine runs there on CUDA.  Otherwise map it
 * for the host (GstCudaMemory then downloads it). */
gboolean gst_stereo_depth_cuda_in_place (GstStereoDepth * self,
    GstBuffer * buffer);
/* The map flag for device pointers (GST_MAP_CUDA). */
#define GST_STEREO_DEPTH_MAP_CUDA (GST_MAP_FLAG_LAST << 1)

#else

static inline gboolean
gst_stereo_depth_cuda_query (G_GNUC_UNUSED GstStereoDepth * self,
    G_GNUC_UNUSED GstQuery * query)
{
  return FALSE;
}

static inline void
gst_stereo_depth_cuda_set_context (G_GNUC_UNUSED GstStereoDepth * self,
    G_GNUC_UNUSED GstContext * context)
{
}

static inline gboolean
gst_stereo_depth_cuda_caps (G_GNUC_UNUSED const GstCaps * caps)
{
  return FALSE;
}

static inline gboolean
gst_stereo_depth_cuda_ensure (G_GNUC_UNUSED GstStereoDepth * self,
    G_GNUC_UNUSED gint device_id)
{
  return FALSE;
}

static inline void
gst_stereo_depth_cuda_reset (G_GNUC_UNUSED GstStereoDepth * self)
{
}

static inline void
gst_stereo_depth_cuda_enter (G_GNUC_UNUSED GstStereoDepth * self)
{
}

static inline void
gst_stereo_depth_cuda_leave (G_GNUC_UNUSED GstStereoDepth * self)
{
}

static inline gboolean
gst_stereo_depth_cuda_in_place (G_GNUC_UNUSED GstStereoDepth * self,
    G_GNUC_UNUSED GstBuffer * buffer)
{
  return FALSE;
}

#define GST_STEREO_DEPTH_MAP_CUDA 0

#endif

G_END_DECLS

#endif
