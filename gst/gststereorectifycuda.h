/* stereorectify on frames in `memory:CUDAMemory` (nvh264dec, cudaupload,
 * ...): the GstCudaContext it shares with its neighbours through
 * GstContext, CUDA buffer pools, and the remap run on the GPU where the
 * frames lie (sd-cuda.h's SdCudaRemap).
 *
 * Built only with the CUDA backend and GStreamer's CUDA library
 * (HAVE_GST_CUDA); without them the element takes system memory alone and
 * these functions do nothing. */
#ifndef __GST_STEREO_RECTIFY_CUDA_H__
#define __GST_STEREO_RECTIFY_CUDA_H__

#include <gst/base/gstbasetransform.h>

#include "gststereorectify.h"

G_BEGIN_DECLS

#ifdef HAVE_GST_CUDA

/* The formats stereorectify takes that GStreamer 1.22's CUDA memory holds
 * (its allocator knows no others). */
#define GST_STEREO_RECTIFY_CUDA_FORMATS "{ I420, YV12, Y42B, Y444, NV12, " \
    "NV21, RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, RGB, BGR" \
    GST_STEREO_RECTIFY_CUDA_FORMATS_16 " }"
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
#define GST_STEREO_RECTIFY_CUDA_FORMATS_16 ", P010_10LE, P016_LE, " \
    "I420_10LE, I422_10LE, I422_12LE, Y444_16LE"
#else
#define GST_STEREO_RECTIFY_CUDA_FORMATS_16 ""
#endif

/* Handles a context query with the element's GstCudaContext; FALSE when
 * the query is not one for it. */
gboolean gst_stereo_rectify_cuda_query (GstStereoRectify * self,
    GstQuery * query);
/* Takes a GstCudaContext a neighbour or the application shares. */
void gst_stereo_rectify_cuda_set_context (GstStereoRectify * self,
    GstContext * context);
/* For caps of CUDA memory, finds (context query, then message) or makes
 * the GstCudaContext; FALSE with an element error when there is none.
 * TRUE for other caps. */
gboolean gst_stereo_rectify_cuda_set_caps (GstStereoRectify * self,
    GstCaps * caps);
/* Output buffers of CUDA memory come from a CUDA buffer pool of the
 * element's context, and so do those it proposes upstream.  FALSE when the
 * query's caps are not of CUDA memory (the video filter's way then). */
gboolean gst_stereo_rectify_cuda_decide_allocation (GstStereoRectify * self,
    GstQuery * query);
gboolean gst_stereo_rectify_cuda_propose_allocation (GstStereoRectify *
    self, GstQuery * query);
/* Remaps in on the GPU into out when both are CUDA memory of the
 * element's context, and says so; *ret is then the flow.  FALSE leaves
 * them to the host (GstCudaMemory maps them there by copying). */
gboolean gst_stereo_rectify_cuda_transform (GstStereoRectify * self,
    GstBuffer * in, GstBuffer * out, GstFlowReturn * ret);
/* Frees the maps' copies on the device (the maps are about to change). */
void gst_stereo_rectify_cuda_clear_maps (GstStereoRectify * self);
/* ... and drops the context (element stopped). */
void gst_stereo_rectify_cuda_reset (GstStereoRectify * self);

#else

static inline gboolean
gst_stereo_rectify_cuda_query (G_GNUC_UNUSED GstStereoRectify * self,
    G_GNUC_UNUSED GstQuery * query)
{
  return FALSE;
}

static inline void
gst_stereo_rectify_cuda_set_context (G_GNUC_UNUSED GstStereoRectify * self,
    G_GNUC_UNUSED GstContext * context)
{
}

static inline gboolean
gst_stereo_rectify_cuda_set_caps (G_GNUC_UNUSED GstStereoRectify * self,
    G_GNUC_UNUSED GstCaps * caps)
{
  return TRUE;
}

static inline gboolean
gst_stereo_rectify_cuda_decide_allocation (G_GNUC_UNUSED GstStereoRectify *
    self, G_GNUC_UNUSED GstQuery * query)
{
  return FALSE;
}

static inline gboolean
gst_stereo_rectify_cuda_propose_allocation (G_GNUC_UNUSED GstStereoRectify *
    self, G_GNUC_UNUSED GstQuery * query)
{
  return FALSE;
}

static inline gboolean
gst_stereo_rectify_cuda_transform (G_GNUC_UNUSED GstStereoRectify * self,
    G_GNUC_UNUSED GstBuffer * in, G_GNUC_UNUSED GstBuffer * out,
    G_GNUC_UNUSED GstFlowReturn * ret)
{
  return FALSE;
}

static inline void
gst_stereo_rectify_cuda_clear_maps (G_GNUC_UNUSED GstStereoRectify * self)
{
}

static inline void
gst_stereo_rectify_cuda_reset (G_GNUC_UNUSED GstStereoRectify * self)
{
}

#endif

G_END_DECLS

#endif
