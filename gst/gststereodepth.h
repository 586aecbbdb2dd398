/* stereodepth: disparity of a left and a right video stream (GstAggregator). */
#ifndef __GST_STEREO_DEPTH_H__
#define __GST_STEREO_DEPTH_H__

#include <gst/base/gstaggregator.h>
#include <gst/video/video.h>

#include "sd-calib.h"
#include "sd-engine.h"
#include "gststereodepthconfidence.h"
#include "gststereodepthwatch.h"
#include "gststereodepthpace.h"
#include "gststereodepthviews.h"

G_BEGIN_DECLS

#define GST_TYPE_STEREO_DEPTH (gst_stereo_depth_get_type ())
G_DECLARE_FINAL_TYPE (GstStereoDepth, gst_stereo_depth, GST, STEREO_DEPTH,
    GstAggregator);

typedef enum
{
  GST_STEREO_DEPTH_BACKEND_AUTO,
  GST_STEREO_DEPTH_BACKEND_CPU,
  GST_STEREO_DEPTH_BACKEND_CUDA,
  GST_STEREO_DEPTH_BACKEND_REFERENCE,
} GstStereoDepthBackend;

/* A pair in the engine, waiting to be collected. */
typedef struct
{
  GstBuffer *out;               /* carries the left frame's timestamps */
  GstVideoFrame frame;          /* out, mapped for the engine to write */
  GstClockTime running_time;    /* of the left frame: a live deadline */
  GstClockTime submit_time;     /* spent in sd_engine_submit */
  gboolean confidence;          /* submitted with params.confidence */
  SdOutput output;              /* params.output */
  /* the disparities searched, pixels: the automatic count resolved */
  gint search_min, search_max;
  /* frames in CUDA memory the engine reads in place: mapped until the
   * pair is collected */
  GstVideoFrame inputs[2];
  guint n_inputs;
} GstStereoDepthPending;

struct _GstStereoDepth
{
  GstAggregator parent;

  GstAggregatorPad *left_pad;
  GstAggregatorPad *right_pad;

  /* Streaming thread only: the pads' serialized events and aggregate() both
   * run there, so these need no lock. */
  GstVideoInfo left_info;
  GstVideoInfo right_info;
  GstStereoDepthViews views;    /* what the left input's frames hold */
  gboolean right_ended;         /* views packed: the unlinked right input ended by us */
  GstVideoInfo out_info;
  GstBufferPool *pool;
  /* src_confidence's frames: GRAY8 of the output's size, from their own
   * pool (made with pool, empty until the pad asks) */
  GstVideoInfo confidence_info;
  GstBufferPool *confidence_pool;
  SdEngine *engine;
  /* what engine was created for: a change of either replaces it */
  GstStereoDepthBackend engine_backend;
  gint engine_device;
  /* the band rows (sd-band.h) the engine last reported: a change the
   * band-rows property did not ask for is posted as a warning */
  gint engine_band_rows;
  /* the rows' offset (align-rows) last reported */
  SdRowOffset noted_rows;
  GstStereoDepthPending pending[SD_ENGINE_MAX_IN_FLIGHT];       /* oldest first */
  /* CUDA memory in (gststereodepthcuda.h): the GstCudaContext shared with
   * the neighbours (NULL: none yet), whether an input's caps carried CUDA
   * memory, and whether the engine was made in that context */
  GstObject *cuda_context;
  gboolean cuda_input;
  gboolean engine_in_cuda_context;
  guint n_pending;
  /* a drain outside aggregate() that failed: aggregate() returns it */
  GstFlowReturn drain_flow;
  /* the calibration read at start, its maps for the view size, and the
   * maps' id the engine has (0: none) */
  SdStereoCalib *calib;
  SdRectification *rect;
  guint64 engine_rect_id;

  /* Held by aggregate() and by the starvation watch while it drops frames,
   * so that the frames aggregate() peeks at stay in their pads. */
  GMutex aggregate_lock;
  GstStereoDepthWatch watch;
  GstStereoDepthPace pace;

  /* Protected by the object lock: written by the application thread
   * (properties, pad requests) and by the streaming thread (statistics). */
  GstStereoDepthConfidence confidence;
  SdParams params;
  gboolean params_changed;
  GstStereoDepthBackend backend;
  GstStereoDepthInputLayout input_layout;
  gint cuda_device_id;
  gint pairs_in_flight;
  gint64 max_time_difference;
  gint64 timeout;
  gchar *calibration;           /* files, read when the element starts */
  gchar *calibration_right;
  gboolean statistics;          /* post a message per output frame */
  guint64 frames_processed;
  guint64 frames_dropped;
  guint64 pairs_late;           /* skipped, live, for being late */
  GstClockTime process_time_total;
};

GST_ELEMENT_REGISTER_DECLARE (stereodepth);

/* Pops and drops the next frame of pad, counted in frames-dropped; why is
 * for the log.  Used by the starvation watch too. */
void gst_stereo_depth_drop (GstStereoDepth * self, GstAggregatorPad * pad,
    const gchar * why);

G_END_DECLS

#endif
