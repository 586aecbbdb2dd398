/* The CUDA SdBackend and the life of an SdCudaPipeline: its streams and
 * events, and pairs in flight through pinned staging (upload, submit,
 * collect).  Where a frame's buffers lie is sd-cuda-buffers.cu's, the
 * stages of a pair sd-cuda-enqueue.cu's.
 *
 * Every entry point selects the engine's device first: the element may call
 * from different streaming threads, and cudaSetDevice is per thread.  A
 * pipeline made in the caller's current context (SD_DEVICE_CURRENT_CONTEXT,
 * GStreamer's GstCudaContext) selects nothing: its caller makes that
 * context current around every call, and cudaSetDevice would replace it
 * with the device's primary context. */
#include <cuda_runtime.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sd-cuda-pipeline.h"
#include "sd-cuda-tiledbp.h"

SdStatus
sd_cuda_fail (SdError * err, cudaError_t e, const char *what)
{
  SdStatus st = e == cudaErrorMemoryAllocation ? SD_ERROR_OUT_OF_MEMORY :
      e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ?
      SD_ERROR_NO_DEVICE : SD_ERROR_BACKEND;
  return sd_error_set (err, st, "CUDA error while %s: %s (%s)", what,
      cudaGetErrorString (e), cudaGetErrorName (e));
}

SdStatus
sd_cuda_select_device (SdCudaPipeline * s, SdError * err)
{
  if (!s->external)
    SD_CUDA_CHECK (cudaSetDevice (s->device), "selecting the device");
  return SD_OK;
}

void
sd_cuda_synchronize (SdCudaPipeline * s)
{
  cudaStreamSynchronize (s->upload);
  cudaStreamSynchronize (s->stream);
  cudaStreamSynchronize (s->download);
}

/* Whether this backend has kernels for params: every sgm and hbp
 * setting, and the tiled-bp ones whose tile fits in a block's shared
 * memory on the current device. */
static bool
cuda_supports (const SdParams * p, SdError * err)
{
  if (p->algorithm != SD_ALGORITHM_TILED_BP)
    return true;
  /* an automatic range depends on the frames' width: the widest one */
  SdParams widest = *p;
  widest.num_disparities = sd_params_disparities (p, INT_MAX);
  int device = 0, max_smem = 0;
  if (cudaGetDevice (&device) != cudaSuccess
      || cudaDeviceGetAttribute (&max_smem,
          cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess) {
    sd_error_set (err, SD_ERROR_NO_DEVICE,
        "the CUDA backend could not read the device's shared memory size");
    return false;
  }
  return sd_cuda_tiled_bp_fits (&widest, max_smem, err);
}

/* What cuda_supports checks, against the engine's own device.  out may be
 * NULL: a submitted pair's output comes with its collect. */
static SdStatus
check_input (const SdCudaPipeline * s, const SdParams * p,
    const SdPlane * left, const SdPlane * right, const SdPlane * out,
    SdError * err)
{
  if (p->num_disparities < 1)
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "the pipeline takes a disparity count, not the automatic 0: "
        "resolve it with sd_params_disparities() (the engine does)");
  if (p->algorithm == SD_ALGORITHM_TILED_BP
      && !sd_cuda_tiled_bp_fits (p, s->info.max_smem_optin, err))
    return err ? err->status : SD_ERROR_INVALID_ARGUMENT;
  if (left->width != right->width || left->height != right->height
      || (out && (out->width != left->width || out->height != left->height)))
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "the left, right and output planes must have the same size");
  if (left->format == SD_PIXEL_FLOAT || right->format == SD_PIXEL_FLOAT
      || (out && out->format != SD_PIXEL_GRAY16))
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "the CUDA backend takes 8-bit, 16-bit or RGB planes in and a "
        "GRAY16 plane out");
  return SD_OK;
}

/* Planes to the slot's luma.  Host planes: rows into its pinned staging,
 * one copy each on the upload stream, luma extraction (formats other than
 * GRAY8) on the kernels' stream once the copies are done.  Device planes
 * (device set): luma extraction straight from them, on the kernels'
 * stream. */
static SdStatus
enqueue_upload (SdCudaPipeline * s, SdCudaSlot * slot, const SdPlane * left,
    const SdPlane * right, bool device, SdError * err)
{
  const int w = s->width, h = s->height;
  const size_t n = (size_t) w * h;
  const SdPlane *planes[2] = { left, right };
  for (int i = 0; i < 2; i++) {
    const SdPlane *pl = planes[i];
    if (device)
      continue;
    const size_t row_bytes = (size_t) w *
        sd_pixel_layout (pl->format)->bytes_per_pixel;
    uint8_t *stage = slot->stage_in + i * n * 4;
    if (pl->stride == row_bytes)
      memcpy (stage, pl->data, row_bytes * h);
    else
      for (int y = 0; y < h; y++)
        memcpy (stage + y * row_bytes, sd_plane_row (pl, y), row_bytes);
    SD_CUDA_CHECK (cudaMemcpyAsync (pl->format == SD_PIXEL_GRAY8 ?
            slot->luma + i * n : slot->raw + i * n * 4, stage,
            row_bytes * h, cudaMemcpyHostToDevice, s->upload),
        "uploading an image");
  }
  SD_CUDA_CHECK (cudaEventRecord (slot->uploaded, s->upload),
      "recording an event");
  SD_CUDA_CHECK (cudaStreamWaitEvent (s->stream, slot->uploaded, 0),
      "ordering the upload");
  for (int i = 0; i < 2; i++) {
    const SdPlane *pl = planes[i];
    if (device)
      SD_CUDA_CHECK (sd_cuda_luma (pl->data, pl->stride, pl->format,
              slot->luma + i * n, w, h, s->stream), "extracting luma");
    else if (pl->format != SD_PIXEL_GRAY8)
      SD_CUDA_CHECK (sd_cuda_luma (slot->raw + i * n * 4, (size_t) w *
              sd_pixel_layout (pl->format)->bytes_per_pixel, pl->format,
              slot->luma + i * n, w, h, s->stream), "extracting luma");
  }
  return SD_OK;
}

/* Host planes (device planes when device is set) in, disparity into the
 * slot's pinned staging; only enqueues.  The slot must be free: its
 * staging is not read by earlier work. */
static SdStatus
submit_pair (SdCudaPipeline * s, int slot_index, const SdParams * p,
    const SdPlane * left, const SdPlane * right, bool device, bool timed,
    SdError * err)
{
  SdCudaSlot *slot = &s->slots[slot_index];
  SdStatus st;
  if ((st = check_input (s, p, left, right, NULL, err)) != SD_OK
      || (st = sd_cuda_select_device (s, err)) != SD_OK
      || (st = sd_cuda_ensure_buffers (s, p, left->width, left->height, err))
      != SD_OK)
    return st;
  const int w = s->width, h = s->height;
  s->luma = slot->luma;
  if (timed)
    SD_CUDA_CHECK (cudaEventRecord (s->ev[0], s->upload), "recording an event");
  if ((st = enqueue_upload (s, slot, left, right, device, err)) != SD_OK
      || (st = sd_cuda_enqueue_stages (s, p, slot->out, (size_t) w * 2,
              slot->conf, err)) != SD_OK)
    return st;
  SD_CUDA_CHECK (cudaEventRecord (slot->computed, s->stream),
      "recording an event");
  SD_CUDA_CHECK (cudaStreamWaitEvent (s->download, slot->computed, 0),
      "ordering the download");
  SD_CUDA_CHECK (cudaMemcpyAsync (slot->stage_out, slot->out,
          (size_t) w * h * 2, cudaMemcpyDeviceToHost, s->download),
      "downloading the disparity");
  if (p->confidence)
    SD_CUDA_CHECK (cudaMemcpyAsync (slot->stage_conf, slot->conf,
            (size_t) w * h, cudaMemcpyDeviceToHost, s->download),
        "downloading the confidence");
  if (timed)
    SD_CUDA_CHECK (cudaEventRecord (s->ev[1], s->download),
        "recording an event");
  SD_CUDA_CHECK (cudaEventRecord (slot->done, s->download),
      "recording an event");
  slot->width = w;
  slot->height = h;
  return SD_OK;
}

/* Waits for the slot's pair and copies its disparity to out and its
 * confidence to conf (each when not NULL, a host plane of the pair's
 * size; conf only for a pair submitted with params->confidence). */
static SdStatus
collect_host (SdCudaPipeline * s, int slot_index, SdPlane * out,
    SdPlane * conf, SdError * err)
{
  const SdCudaSlot *slot = &s->slots[slot_index];
  SdStatus st = sd_cuda_select_device (s, err);
  if (st != SD_OK)
    return st;
  SD_CUDA_CHECK (cudaEventSynchronize (slot->done), "running the pipeline");
  if (out)
    for (int y = 0; y < slot->height; y++)
      memcpy (sd_plane_row (out, y), slot->stage_out +
          (size_t) y * slot->width, (size_t) slot->width * 2);
  if (conf)
    for (int y = 0; y < slot->height; y++)
      memcpy (sd_plane_row (conf, y), slot->stage_conf +
          (size_t) y * slot->width, (size_t) slot->width);
  return SD_OK;
}

SdStatus
sd_cuda_process_host (SdCudaPipeline * s, const SdParams * p,
    const SdPlane * left, const SdPlane * right, SdPlane * out, bool timed,
    SdError * err)
{
  SdStatus st = check_input (s, p, left, right, out, err);
  if (st == SD_OK)
    st = submit_pair (s, 0, p, left, right, false, timed, err);
  return st == SD_OK ? collect_host (s, 0, out, NULL, err) : st;
}

SdStatus
sd_cuda_enqueue_device (SdCudaPipeline * s, const SdParams * p,
    const SdPlane * left, const SdPlane * right, SdPlane * out, SdError * err)
{
  const int w = s->width, h = s->height;
  const SdPlane *planes[2] = { left, right };
  s->luma = s->slots[0].luma;
  for (int i = 0; i < 2; i++)
    SD_CUDA_CHECK (sd_cuda_luma (planes[i]->data, planes[i]->stride,
            planes[i]->format, s->luma + (size_t) i * w * h, w, h,
            s->stream), "extracting luma");
  return sd_cuda_enqueue_stages (s, p, (uint16_t *) out->data, out->stride,
      s->slots[0].conf, err);
}

/* The streams of the copies, apart from the kernels' (copies on the
 * kernels' stream took the element's 1080p rate from 315 to 302 pairs/s:
 * docs/performance.md). */
static cudaError_t
create_copy_streams (SdCudaPipeline * s)
{
  cudaStream_t up, down;
  cudaError_t e;
  s->upload = s->download = s->stream;
  if ((e = cudaStreamCreateWithFlags (&up, cudaStreamNonBlocking))
      != cudaSuccess)
    return e;
  s->upload = up;
  if ((e = cudaStreamCreateWithFlags (&down, cudaStreamNonBlocking))
      != cudaSuccess)
    return e;
  s->download = down;
  return cudaSuccess;
}

/* The timing events and each slot's; stops at the first failure. */
static cudaError_t
create_events (SdCudaPipeline * s)
{
  cudaError_t e = cudaEventCreate (&s->ev[0]);
  if (e == cudaSuccess)
    e = cudaEventCreate (&s->ev[1]);
  if (e == cudaSuccess)
    e = cudaEventCreateWithFlags (&s->fork, cudaEventDisableTiming);
  if (e == cudaSuccess)
    e = cudaEventCreateWithFlags (&s->join, cudaEventDisableTiming);
  for (int i = 0; i < SD_ENGINE_MAX_IN_FLIGHT; i++) {
    cudaEvent_t *slot_events[3] = { &s->slots[i].uploaded,
      &s->slots[i].computed, &s->slots[i].done
    };
    for (int k = 0; k < 3 && e == cudaSuccess; k++)
      e = cudaEventCreateWithFlags (slot_events[k], cudaEventDisableTiming);
  }
  return e;
}

/* Those create_events made. */
static void
destroy_events (SdCudaPipeline * s)
{
  for (int i = 0; i < 2; i++)
    if (s->ev[i])
      cudaEventDestroy (s->ev[i]);
  if (s->fork)
    cudaEventDestroy (s->fork);
  if (s->join)
    cudaEventDestroy (s->join);
  for (int i = 0; i < SD_ENGINE_MAX_IN_FLIGHT; i++) {
    cudaEvent_t slot_events[3] = { s->slots[i].uploaded,
      s->slots[i].computed, s->slots[i].done
    };
    for (int k = 0; k < 3; k++)
      if (slot_events[k])
        cudaEventDestroy (slot_events[k]);
  }
}

extern "C" SdCudaPipeline *
sd_cuda_pipeline_new (int device_id, SdError * err)
{
  int count = 0;
  cudaError_t e = cudaGetDeviceCount (&count);
  if (e != cudaSuccess || count == 0) {
    sd_error_set (err, SD_ERROR_NO_DEVICE,
        "no CUDA device is available (%s); use backend=cpu or auto",
        e != cudaSuccess ? cudaGetErrorString (e) : "none found");
    return NULL;
  }
  const bool external = device_id == SD_DEVICE_CURRENT_CONTEXT;
  /* the current context's device: the runtime takes a context made
   * current through the driver API as its own */
  if (external && (e = cudaGetDevice (&device_id)) != cudaSuccess) {
    sd_cuda_fail (err, e, "reading the current context's device");
    return NULL;
  }
  if (device_id < 0 || device_id >= count) {
    sd_error_set (err, SD_ERROR_NO_DEVICE,
        "CUDA device %d does not exist: this machine has %d", device_id, count);
    return NULL;
  }
  SdCudaPipeline *s = (SdCudaPipeline *) calloc (1, sizeof (*s));
  if (!s) {
    sd_error_set (err, SD_ERROR_OUT_OF_MEMORY, "out of memory");
    return NULL;
  }
  s->device = device_id;
  s->external = external;
  cudaDeviceProp prop;
  if ((!external && (e = cudaSetDevice (device_id)) != cudaSuccess)
      || (e = cudaGetDeviceProperties (&prop, device_id)) != cudaSuccess
      || (e = cudaStreamCreateWithFlags (&s->stream,
              cudaStreamNonBlocking)) != cudaSuccess) {
    sd_cuda_fail (err, e, "opening the CUDA device");
    free (s);
    return NULL;
  }
  const char *what = "opening the CUDA device";
  if ((e = create_copy_streams (s)) == cudaSuccess
      && (e = cudaStreamCreateWithFlags (&s->aside,
              cudaStreamNonBlocking)) == cudaSuccess) {
    what = "creating events";
    e = create_events (s);
  }
  if (e != cudaSuccess) {
    sd_cuda_fail (err, e, what);
    sd_cuda_pipeline_free (s);
    return NULL;
  }
  s->info.sm_count = prop.multiProcessorCount;
  s->info.max_smem_optin = (int) prop.sharedMemPerBlockOptin;
  s->info.cooperative = prop.cooperativeLaunch;
  snprintf (s->device_name, sizeof (s->device_name), "%s (sm_%d%d, %d SMs)",
      prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  return s;
}

extern "C" void
sd_cuda_pipeline_free (SdCudaPipeline * s)
{
  if (!s)
    return;
  sd_cuda_select_device (s, NULL);
  sd_cuda_synchronize (s);
  sd_cuda_graph_free (s->bp_graph);
  sd_cuda_release_buffers (s);
  cudaFree (s->rect_maps);
  destroy_events (s);
  if (s->upload != s->stream)
    cudaStreamDestroy (s->upload);
  if (s->download != s->stream)
    cudaStreamDestroy (s->download);
  if (s->aside)
    cudaStreamDestroy (s->aside);
  cudaStreamDestroy (s->stream);
  free (s);
}

extern "C" const char *
sd_cuda_pipeline_device_name (const SdCudaPipeline * s)
{
  return s ? s->device_name : "";
}

extern "C" SdStatus
sd_cuda_pipeline_process (SdCudaPipeline * s, const SdParams * p,
    const SdPlane * left, const SdPlane * right, SdPlane * out, SdError * err)
{
  return sd_cuda_process_host (s, p, left, right, out, false, err);
}

extern "C" SdStatus
sd_cuda_pipeline_process_device (SdCudaPipeline * s, const SdParams * p,
    const SdPlane * left, const SdPlane * right, SdPlane * out, SdError * err)
{
  SdStatus st;
  if ((st = check_input (s, p, left, right, out, err)) != SD_OK
      || (st = sd_cuda_select_device (s, err)) != SD_OK
      || (st = sd_cuda_ensure_buffers (s, p, left->width, left->height, err))
      != SD_OK
      || (st = sd_cuda_enqueue_device (s, p, left, right, out, err)) != SD_OK)
    return st;
  SD_CUDA_CHECK (cudaStreamSynchronize (s->stream), "running the pipeline");
  return SD_OK;
}

static bool
cuda_available (int device_id, SdError * err)
{
  int count = 0;
  cudaError_t e = cudaGetDeviceCount (&count);
  if (e != cudaSuccess || count == 0) {
    cudaGetLastError ();
    sd_error_set (err, SD_ERROR_NO_DEVICE,
        "no CUDA device is available (%s); use backend=cpu or auto",
        e != cudaSuccess ? cudaGetErrorString (e) : "none found");
    return false;
  }
  if (device_id != SD_DEVICE_CURRENT_CONTEXT
      && (device_id < 0 || device_id >= count)) {
    sd_error_set (err, SD_ERROR_NO_DEVICE,
        "CUDA device %d does not exist: this machine has %d", device_id, count);
    return false;
  }
  return true;
}

static void *
cuda_create (int device_id, SdError * err)
{
  return sd_cuda_pipeline_new (device_id, err);
}

static SdStatus
cuda_submit (void *state, int slot, const SdParams * params,
    const SdPlane * left, const SdPlane * right, SdError * err)
{
  return submit_pair ((SdCudaPipeline *) state, slot, params, left, right,
      false, false, err);
}

static SdStatus
cuda_submit_device (void *state, int slot, const SdParams * params,
    const SdPlane * left, const SdPlane * right, SdError * err)
{
  return submit_pair ((SdCudaPipeline *) state, slot, params, left, right,
      true, false, err);
}

static SdStatus
cuda_collect (void *state, int slot, SdPlane * out, SdPlane * confidence,
    SdError * err)
{
  return collect_host ((SdCudaPipeline *) state, slot, out, confidence, err);
}

static void
cuda_destroy (void *state)
{
  sd_cuda_pipeline_free ((SdCudaPipeline *) state);
}

/* The maps go to the device once, here; no pair is in flight.  The next
 * pair carves the buffers again with room for the rectified views. */
extern "C" SdStatus
sd_cuda_pipeline_set_rectification (SdCudaPipeline * s,
    const SdRectification * rect, SdError * err)
{
  SdStatus st = sd_cuda_select_device (s, err);
  if (st != SD_OK)
    return st;
  sd_cuda_synchronize (s);
  cudaFree (s->rect_maps);
  s->rect_maps = NULL;
  s->rect_luma = NULL;
  if (!rect)
    return SD_OK;
  const size_t bytes = (size_t) rect->width * rect->height * 2 *
      sizeof (int32_t);
  SD_CUDA_CHECK (cudaMalloc (&s->rect_maps, 2 * bytes), "allocating the "
      "rectification maps");
  for (int i = 0; i < 2; i++)
    SD_CUDA_CHECK (cudaMemcpyAsync ((uint8_t *) s->rect_maps + i * bytes,
            rect->map[i], bytes, cudaMemcpyHostToDevice, s->stream),
        "copying the rectification maps");
  SD_CUDA_CHECK (cudaStreamSynchronize (s->stream),
      "copying the rectification maps");
  return SD_OK;
}

static SdStatus
cuda_set_rectification (void *state, const SdRectification * rect,
    SdError * err)
{
  return sd_cuda_pipeline_set_rectification ((SdCudaPipeline *) state, rect,
      err);
}

static int
cuda_band_rows (void *state)
{
  return ((const SdCudaPipeline *) state)->band_rows;
}

/* A synchronous copy, in the pipeline's device or context: the engine
 * measures a device pair's rows once, before its first submission. */
static SdStatus
cuda_download (void *state, const SdPlane * plane, void *host, SdError * err)
{
  SdStatus st = sd_cuda_select_device ((SdCudaPipeline *) state, err);
  if (st != SD_OK)
    return st;
  const size_t row = (size_t) plane->width *
      sd_pixel_layout (plane->format)->bytes_per_pixel;
  SD_CUDA_CHECK (cudaMemcpy2D (host, plane->stride, plane->data,
          plane->stride, row, plane->height, cudaMemcpyDeviceToHost),
      "copying a view to the host to measure its rows");
  return SD_OK;
}

/* No process: the engine runs a pair as submit and collect. */
extern "C" const SdBackend sd_cuda_backend = {
  "cuda", cuda_available, cuda_supports, cuda_create, NULL, cuda_destroy,
  cuda_submit, cuda_collect, cuda_set_rectification, cuda_submit_device,
  cuda_band_rows, cuda_download,
};
