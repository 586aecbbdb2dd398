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

/* A backend is a vtable; common/ reaches the CUDA backend only through it. */
typedef struct
{
  const char *name;
  /* Returns true when the backend can run here; otherwise says why. */
  bool (*available) (int device_id, SdError * err);
  /* Returns true when the backend can run params; otherwise says why.
   * NULL: it runs everything. */
  bool (*supports) (const SdParams * params, SdError * err);
  void *(*create) (int device_id, SdError * err);
  /* left and right have equal sizes; out is GRAY16 of the same size. */
  SdStatus (*process) (void *state, const SdParams * params,
      const SdPlane * left, const SdPlane * right, SdPlane * out,
      SdError * err);
  void (*destroy) (void *state);
} SdBackend;

/* backend: "auto" (CUDA when a device is there and runs the parameters,
 * else CPU; re-chosen when sd_engine_set_params changes what is needed),
 * "cpu" or "cuda".
 * device_id picks the CUDA device.  params are validated and copied.
 * Returns NULL with err set on failure. */
SdEngine *sd_engine_new (const char *backend, int device_id,
    const SdParams * params, SdError * err);
void sd_engine_free (SdEngine * engine);

/* The backend actually in use ("cpu" or "cuda"). */
const char *sd_engine_backend_name (const SdEngine * engine);

/* Validates and copies params; the next process call uses them.  On error
 * the engine keeps its previous parameters. */
SdStatus sd_engine_set_params (SdEngine * engine, const SdParams * params,
    SdError * err);
const SdParams *sd_engine_get_params (const SdEngine * engine);

/* Computes the disparity of left against right into out (GRAY16, same size,
 * the output contract: 16 * d, 0 = invalid). */
SdStatus sd_engine_process (SdEngine * engine, const SdPlane * left,
    const SdPlane * right, SdPlane * out, SdError * err);

/* Every backend compiled into this build, NULL-terminated. */
const SdBackend *const *sd_backends (void);

#ifdef __cplusplus
}
#endif

#endif
