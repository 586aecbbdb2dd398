/* stereorectify: undistorts and rectifies one view of a calibrated rig in
 * its own format (GstVideoFilter), through the maps and the remap that
 * stereodepth's calibration stage runs (common/sd-rectify.h): its output
 * lines up pixel for pixel with stereodepth's disparity of that rig. */
#ifndef __GST_STEREO_RECTIFY_H__
#define __GST_STEREO_RECTIFY_H__

#include <gst/video/gstvideofilter.h>
#include <gst/video/video.h>

#include "gststereodepthviews.h"
#include "sd-rectify.h"

G_BEGIN_DECLS

#define GST_TYPE_STEREO_RECTIFY (gst_stereo_rectify_get_type ())
G_DECLARE_FINAL_TYPE (GstStereoRectify, gst_stereo_rectify, GST,
    STEREO_RECTIFY, GstVideoFilter);

typedef enum
{
  GST_STEREO_RECTIFY_VIEW_LEFT,
  GST_STEREO_RECTIFY_VIEW_RIGHT,
} GstStereoRectifyView;

/* The samples of a frame one map remaps: a component of a plane, or one
 * byte of each pixel of a packed plane of 8-bit samples.  Offsets and
 * strides in bytes. */
typedef struct
{
  gint plane, offset, pixel_stride;
  /* the value's bits in its sample: 8 of a byte, or more of a 16-bit
   * sample from bit shift (P010: 10 from bit 6) */
  gint depth, shift;
  gint sub_x, sub_y;            /* its subsampling (log2) */
  gint width, height;           /* the component's grid in one view */
  const gint32 *map;            /* the view's, or one of subsampled */
  /* where the view starts in a packed frame's plane: bytes across, rows
   * down (0 and 0 for the first view, or a frame of one) */
  gint view_x, view_rows;
} GstStereoRectifyPart;

/* the most: 4 planes, or a packed plane of up to 8 bytes a pixel */
#define GST_STEREO_RECTIFY_MAX_PARTS 8

struct _GstStereoRectify
{
  GstVideoFilter parent;

  /* Protected by the object lock (properties, read when the element
   * starts). */
  gchar *calibration;
  gchar *calibration_right;
  GstStereoRectifyView view;
  GstStereoDepthInputLayout input_layout;

  /* Streaming thread only (start, set_info and stop come in it or with it
   * stopped). */
  SdStereoCalib *calib;         /* NULL before start */
  GstStereoRectifyView view_used;
  SdRectification *rect;        /* for the negotiated size */
  gint32 *chroma_map;           /* subsampled chroma's, when the format has */
  gint chroma_width, chroma_height;
  GstStereoRectifyPart parts[GST_STEREO_RECTIFY_MAX_PARTS];
  gint n_parts;

  /* Frames in CUDA memory (gststereorectifycuda.h): the GstCudaContext
   * (set_context may set it from another thread while it is NULL), and the
   * maps' copies on the device (an SdCudaRemap), made in that context. */
  GstObject *cuda_context;
  gpointer cuda_remap;
};

/* Where part's first sample lies in a frame of the input (in the view the
 * element gives) and in one of the output; host or device pointers, as
 * the frames were mapped. */
static inline const guint8 *
gst_stereo_rectify_part_src (const GstStereoRectifyPart * part,
    const GstVideoFrame * in)
{
  return (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (in, part->plane) +
      (gsize) part->view_rows * GST_VIDEO_FRAME_PLANE_STRIDE (in,
      part->plane) + part->view_x + part->offset;
}

static inline guint8 *
gst_stereo_rectify_part_dst (const GstStereoRectifyPart * part,
    const GstVideoFrame * out)
{
  return (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (out, part->plane) +
      part->offset;
}

GST_ELEMENT_REGISTER_DECLARE (stereorectify);

G_END_DECLS

#endif
