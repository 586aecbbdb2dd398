/* SdEngine: the one entry point of the stereo pipeline.
 *
 * The element, sd-bench and the tests all call these functions, so what is
 * tested and measured is what users run.  An engine holds one backend's
 * state (buffers sized for the last frame size); it is not thread-safe: use
 * one engine per thread, or lock around it. */
#ifndef SD_ENGINE_H
#define SD_ENGINE_H

#include "sd-image.h"
#include "sd-params.h"
#include "sd-rectify.h"
#include "sd-row-align.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  SD_OK = 0,
  SD_ERROR_INVALID_ARGUMENT,    /* bad parameter, size mismatch, bad plane */
  SD_ERROR_NO_BACKEND,          /* the backend asked for does not exist here */
  SD_ERROR_NO_DEVICE,           /* the backend exists but has no device */
  SD_ERROR_OUT_OF_MEMORY,
  SD_ERROR_BACKEND,             /* the backend failed (driver error, ...) */
} SdStatus;

/* A status with the sentence that explains it to a user. */
typedef struct
{
  SdStatus status;
  char message[256];
} SdError;

/* Sets err (when not NULL) and returns status. */
SdStatus sd_error_set (SdError * err, SdStatus status, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

typedef struct SdEngine SdEngine;

/* Pairs an engine holds between sd_engine_submit and sd_engine_collect. */
#define SD_ENGINE_MAX_IN_FLIGHT 2

/* A backend is a vtable; common/ reaches the CUDA backend only through it.
 * It has process, or submit and collect: the engine runs a backend without
 * them synchronously (the whole pair in sd_engine_submit). */
typedef struct
{
  const char *name;
  /* Returns true when the backend can run here; otherwise says why. */
  bool (*available) (int device_id, SdError * err);
  /* Returns true when the backend can run params; otherwise says why.
   * NULL: it runs everything. */
  bool (*supports) (const SdParams * params, SdError * err);
  void *(*create) (int device_id, SdError * err);
  /* left and right have equal sizes; out is GRAY16 of the same size;
   * confidence is NULL, or GRAY8 of the same size when
   * params->confidence is set. */
  SdStatus (*process) (void *state, const SdParams * params,
      const SdPlane * left, const SdPlane * right, SdPlane * out,
      SdPlane * confidence, SdError * err);
  void (*destroy) (void *state);
  /* Starts a pair in slot (0 .. SD_ENGINE_MAX_IN_FLIGHT - 1, free) and
   * returns without waiting for it; left and right may be reused once it
   * returns.  The pairs in the other slots have the same size. */
  SdStatus (*submit) (void *state, int slot, const SdParams * params,
      const SdPlane * left, const SdPlane * right, SdError * err);
  /* Waits for the pair in slot and writes its disparity into out (GRAY16,
   * the pair's size), or drops it when out is NULL, and its confidence
   * into confidence (GRAY8; NULL unless the pair was submitted with
   * params->confidence); the slot is free afterwards, also on error. */
  SdStatus (*collect) (void *state, int slot, SdPlane * out,
      SdPlane * confidence, SdError * err);
  /* Remaps every later pair through rect before anything else (NULL:
   * pairs are used as they come).  The engine keeps rect alive and
   * unchanged until the next call, and has no pair in flight during it. */
  SdStatus (*set_rectification) (void *state, const SdRectification * rect,
      SdError * err);
  /* submit with left and right in device memory (NULL: the backend reads
   * host memory only). */
  SdStatus (*submit_device) (void *state, int slot, const SdParams * params,
      const SdPlane * left, const SdPlane * right, SdError * err);
  /* The output rows a band of the last pair submitted (sd-band.h), 0 for
   * none (NULL: params->band_rows). */
  int (*band_rows) (void *state);
  /* Copies a plane in device memory to host, stride bytes a row as in
   * the plane, and returns once it is there (what align-rows measures a
   * device pair on); a backend with submit_device has it. */
  SdStatus (*download) (void *state, const SdPlane * plane, void *host,
      SdError * err);
} SdBackend;

/* A device_id that binds the cuda backend to the CUDA context current on
 * the calling thread when the engine is created (GStreamer's, or an
 * application's) instead of the device's primary context: every later call
 * on the engine, sd_engine_free included, must then be made with that
 * context current, and the planes of sd_engine_submit_device must belong
 * to it. */
#define SD_DEVICE_CURRENT_CONTEXT (-1)

/* backend: "auto" (CUDA when a device is there and runs the parameters,
 * else CPU; re-chosen when sd_engine_set_params changes what is needed),
 * "cpu" or "cuda".
 * device_id picks the CUDA device, or is SD_DEVICE_CURRENT_CONTEXT.
 * params are validated and copied.
 * Returns NULL with err set on failure. */
SdEngine *sd_engine_new (const char *backend, int device_id,
    const SdParams * params, SdError * err);
void sd_engine_free (SdEngine * engine);

/* The backend actually in use ("cpu" or "cuda"). */
const char *sd_engine_backend_name (const SdEngine * engine);

/* Validates and copies params; the next submit (or process) uses them.  On
 * error the engine keeps its previous parameters. */
SdStatus sd_engine_set_params (SdEngine * engine, const SdParams * params,
    SdError * err);
const SdParams *sd_engine_get_params (const SdEngine * engine);

/* Rectifies every later pair with a copy of rect (undistort and rectify
 * both views before the prefilter; sd-rectify.h), or stops with NULL.
 * Waits for the pairs in flight first.  Pairs must then have rect's size. */
SdStatus sd_engine_set_rectification (SdEngine * engine,
    const SdRectification * rect, SdError * err);

/* Computes the disparity of left against right into out (GRAY16, same size,
 * the output contract: 16 * d, 0 = invalid) and, when the parameters ask
 * for it (params->confidence), the confidence into confidence (GRAY8, same
 * size, sd-confidence.h; NULL drops it): sd_engine_submit, then
 * sd_engine_collect, or the backend's process straight into out where it
 * has no submit.  Refused while pairs are in flight. */
SdStatus sd_engine_process (SdEngine * engine, const SdPlane * left,
    const SdPlane * right, SdPlane * out, SdPlane * confidence,
    SdError * err);

/* Pairs in flight, so that a pair's upload, kernels and download overlap
 * the caller's work on the next one.
 *
 * sd_engine_submit starts the disparity of left against right; left and
 * right are copied before it returns.  sd_engine_submit_device does the
 * same for planes in device memory (the cuda backend only), which are read
 * in place on the GPU: they must stay valid and unchanged until the pair
 * is collected.  sd_engine_collect waits for the
 * oldest pair submitted and not yet collected and writes its disparity into
 * out (GRAY16 of that pair's size) and its confidence into confidence
 * (GRAY8 of that size, or NULL; a pair submitted without
 * params->confidence has none to give).  Pairs come out in the order they
 * went in; at most SD_ENGINE_MAX_IN_FLIGHT are in flight.
 *
 * The rules while pairs are in flight:
 * - A pair keeps the parameters it was submitted with: sd_engine_set_params
 *   applies from the next submit on, also when it moves the engine to
 *   another backend (backend "auto").
 * - Pairs of different sizes may be in flight together.
 * - An error from submit means the pair was not taken.  An error from
 *   collect belongs to the pair collected, which is gone; an out or
 *   confidence plane of the wrong size or format, or a confidence plane
 *   for a pair without one, is refused before the pair is taken.
 * - sd_engine_discard and sd_engine_free drop the pairs in flight.
 *
 * Backends without submit and collect (the CPU) compute the whole pair in
 * sd_engine_submit; sd_engine_is_async says which kind the engine runs. */
SdStatus sd_engine_submit (SdEngine * engine, const SdPlane * left,
    const SdPlane * right, SdError * err);
SdStatus sd_engine_submit_device (SdEngine * engine, const SdPlane * left,
    const SdPlane * right, SdError * err);
SdStatus sd_engine_collect (SdEngine * engine, SdPlane * out,
    SdPlane * confidence, SdError * err);
/* Waits for the pairs in flight and drops them. */
void sd_engine_discard (SdEngine * engine);
int sd_engine_in_flight (const SdEngine * engine);
/* True when sd_engine_submit returns before the pair is computed. */
bool sd_engine_is_async (const SdEngine * engine);

/* The output rows a band (sd-band.h) of the last pair submitted, 0 when it
 * went whole: params->band_rows, or with band_rows 0 the bands the backend
 * chose because the frame did not fit its memory (cuda; cpu and reference
 * under hbp and tiled-bp).  The same band_rows on another backend gives
 * the same output. */
int sd_engine_band_rows (const SdEngine * engine);

/* align-rows: what was measured on the last pair measured (measured is
 * false before any, and when too few patches agreed), and whether the
 * engine moves the right view's rows by it (an offset of at least
 * SD_ROW_ALIGN_MIN_OFFSET somewhere across the frame).  The offset is
 * measured on the first pair after the engine is made, its parameters or
 * maps are set, or the pair size changes; a pair in device memory on host
 * copies of its views. */
SdRowOffset sd_engine_row_offset (const SdEngine * engine);
bool sd_engine_rows_moved (const SdEngine * engine);

/* Every backend compiled into this build, NULL-terminated. */
const SdBackend *const *sd_backends (void);

#ifdef __cplusplus
}
#endif

#endif
