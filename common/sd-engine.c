#include "sd-engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct SdEngine
{
  const SdBackend *backend;
  void *state;
  SdParams params;
  bool automatic;               /* created as "auto": re-choose on new params */
  int device_id;
};

SdStatus
sd_error_set (SdError * err, SdStatus status, const char *fmt, ...)
{
  if (err) {
    va_list ap;
    err->status = status;
    va_start (ap, fmt);
    vsnprintf (err->message, sizeof (err->message), fmt, ap);
    va_end (ap);
  }
  return status;
}

static const SdBackend *
find_backend (const char *name)
{
  for (const SdBackend * const *b = sd_backends (); *b; b++)
    if (strcmp ((*b)->name, name) == 0)
      return *b;
  return NULL;
}

static bool
backend_supports (const SdBackend * b, const SdParams * params, SdError * err)
{
  return !b->supports || b->supports (params, err);
}

static const SdBackend *
pick_backend (const char *name, int device_id, const SdParams * params,
    SdError * err)
{
  if (strcmp (name, "auto") == 0) {
    const SdBackend *cuda = find_backend ("cuda");
    if (cuda && cuda->available (device_id, NULL)
        && backend_supports (cuda, params, NULL))
      return cuda;
    return find_backend ("cpu");
  }
  const SdBackend *b = find_backend (name);
  if (!b) {
    if (strcmp (name, "cuda") == 0)
      sd_error_set (err, SD_ERROR_NO_BACKEND,
          "this build has no CUDA backend (it was built without nvcc); "
          "use backend=cpu or auto");
    else
      sd_error_set (err, SD_ERROR_NO_BACKEND,
          "unknown backend '%s' (use auto, cpu or cuda)", name);
    return NULL;
  }
  if (!b->available (device_id, err) || !backend_supports (b, params, err))
    return NULL;
  return b;
}

SdEngine *
sd_engine_new (const char *backend, int device_id, const SdParams * params,
    SdError * err)
{
  char msg[sizeof (err->message)];
  if (!sd_params_validate (params, msg, sizeof (msg))) {
    sd_error_set (err, SD_ERROR_INVALID_ARGUMENT, "%s", msg);
    return NULL;
  }
  const char *name = backend ? backend : "auto";
  const SdBackend *b = pick_backend (name, device_id, params, err);
  if (!b)
    return NULL;
  SdEngine *e = calloc (1, sizeof (*e));
  if (!e) {
    sd_error_set (err, SD_ERROR_OUT_OF_MEMORY, "out of memory");
    return NULL;
  }
  e->backend = b;
  e->params = *params;
  e->automatic = strcmp (name, "auto") == 0;
  e->device_id = device_id;
  e->state = b->create (device_id, err);
  if (!e->state) {
    free (e);
    return NULL;
  }
  return e;
}

void
sd_engine_free (SdEngine * e)
{
  if (!e)
    return;
  e->backend->destroy (e->state);
  free (e);
}

const char *
sd_engine_backend_name (const SdEngine * e)
{
  return e->backend->name;
}

SdStatus
sd_engine_set_params (SdEngine * e, const SdParams * params, SdError * err)
{
  char msg[sizeof (err->message)];
  if (!sd_params_validate (params, msg, sizeof (msg)))
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT, "%s", msg);
  if (e->automatic) {
    /* the best backend for these parameters may be another one */
    const SdBackend *b = pick_backend ("auto", e->device_id, params, err);
    if (b != e->backend) {
      void *state = b->create (e->device_id, err);
      if (!state)
        return err ? err->status : SD_ERROR_BACKEND;
      e->backend->destroy (e->state);
      e->backend = b;
      e->state = state;
    }
  } else if (!backend_supports (e->backend, params, err)) {
    return err ? err->status : SD_ERROR_INVALID_ARGUMENT;
  }
  e->params = *params;
  return SD_OK;
}

const SdParams *
sd_engine_get_params (const SdEngine * e)
{
  return &e->params;
}

static bool
plane_ok (const SdPlane * p)
{
  if (!p || !p->data || p->width <= 0 || p->height <= 0)
    return false;
  return p->stride >= (size_t) p->width *
      sd_pixel_layout (p->format)->bytes_per_pixel;
}

SdStatus
sd_engine_process (SdEngine * e, const SdPlane * left, const SdPlane * right,
    SdPlane * out, SdError * err)
{
  if (!plane_ok (left) || !plane_ok (right) || !plane_ok (out))
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "an image plane is empty or its stride is shorter than a row");
  if (left->width != right->width || left->height != right->height)
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "the left image is %dx%d but the right image is %dx%d; both must "
        "have the same size", left->width, left->height, right->width,
        right->height);
  if (out->width != left->width || out->height != left->height
      || out->format != SD_PIXEL_GRAY16)
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "the output must be a GRAY16 plane of the input size %dx%d",
        left->width, left->height);
  if (left->format == SD_PIXEL_FLOAT || right->format == SD_PIXEL_FLOAT)
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "float planes are not accepted as input images");
  return e->backend->process (e->state, &e->params, left, right, out, err);
}
