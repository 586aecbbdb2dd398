#include "sd-engine.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A pair in flight.  A settled pair is no longer the backend's: its
 * disparity is in done (or its failure in error).  A synchronous backend's
 * pairs are settled in submit; an asynchronous backend's are settled early
 * when the backend must change under them (another size, another backend). */
typedef struct
{
  int width, height;
  bool confidence;              /* submitted with params.confidence */
  bool settled;
  SdError error;
  uint8_t *done;                /* packed GRAY16 rows, then (confidence)
                                 * packed GRAY8 rows */
  size_t done_size;
} SdPair;

struct SdEngine
{
  const SdBackend *backend;
  void *state;
  SdParams params;
  bool automatic;               /* created as "auto": re-choose on new params */
  int device_id;
  /* a ring in submission order; a pair's index is its backend slot */
  SdPair pairs[SD_ENGINE_MAX_IN_FLIGHT];
  int oldest;
  int in_flight;
  SdRectification *rect;        /* the engine's copy, or NULL */
  /* align-rows: whether the offset was measured for pairs of
   * align_width x align_height since the parameters or the maps last
   * changed, what was measured, and the maps that undo it (rect's with the
   * right view moved), which the backend then has instead of rect */
  bool align_done;
  int align_attempts;           /* pairs measured without a result */
  int align_width, align_height;
  SdRowOffset row_offset;
  SdRectification *aligned;
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
  if (!sd_params_validate_for_run (params, msg, sizeof (msg))) {
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
  for (int i = 0; i < SD_ENGINE_MAX_IN_FLIGHT; i++)
    free (e->pairs[i].done);
  sd_rectification_free (e->rect);
  sd_rectification_free (e->aligned);
  free (e);
}

const char *
sd_engine_backend_name (const SdEngine * e)
{
  return e->backend->name;
}

/* The pair's own planes over its buffer, grown to the pair's size: a
 * GRAY16 one in plane and, when the pair has a confidence, a GRAY8 one in
 * confidence. */
static bool
pair_buffer (SdPair * pair, SdPlane * plane, SdPlane * confidence)
{
  const size_t n = (size_t) pair->width * pair->height;
  const size_t bytes = n * (pair->confidence ? 3 : 2);
  if (pair->done_size < bytes) {
    free (pair->done);
    pair->done = malloc (bytes);
    pair->done_size = pair->done ? bytes : 0;
    if (!pair->done)
      return false;
  }
  *plane = (SdPlane) {
  pair->done, pair->width, pair->height, (size_t) pair->width * 2,
        SD_PIXEL_GRAY16};
  *confidence = (SdPlane) {
  pair->done + 2 * n, pair->width, pair->height, (size_t) pair->width,
        SD_PIXEL_GRAY8};
  return true;
}

/* The pair's confidence plane for a backend, or NULL when it has none. */
static SdPlane *
pair_confidence (const SdPair * pair, SdPlane * confidence)
{
  return pair->confidence ? confidence : NULL;
}

static SdStatus
pair_out_of_memory (const SdPair * pair, SdError * err)
{
  return sd_error_set (err, SD_ERROR_OUT_OF_MEMORY,
      "out of memory for a %dx%d disparity", pair->width, pair->height);
}

/* Waits for the backend's pairs in flight and keeps their results, so that
 * the backend may change under them. */
static void
settle (SdEngine * e)
{
  for (int i = 0; i < e->in_flight; i++) {
    const int slot = (e->oldest + i) % SD_ENGINE_MAX_IN_FLIGHT;
    SdPair *pair = &e->pairs[slot];
    SdPlane plane, confidence;
    if (pair->settled)
      continue;
    if (pair_buffer (pair, &plane, &confidence)) {
      e->backend->collect (e->state, slot, &plane,
          pair_confidence (pair, &confidence), &pair->error);
    } else {
      e->backend->collect (e->state, slot, NULL, NULL, NULL);
      pair_out_of_memory (pair, &pair->error);
    }
    pair->settled = true;
  }
}

/* Gives the backend maps (NULL: none) instead of the ones it has, once the
 * pairs in flight, remapped with those, are settled. */
static SdStatus
backend_maps (SdEngine * e, const SdRectification * maps, SdError * err)
{
  if (e->backend->submit)
    settle (e);
  return e->backend->set_rectification (e->state, maps, err);
}

/* Forgets the rows' offset: the backend goes back to the calibration's
 * maps, and the next pair is measured again. */
static void
forget_alignment (SdEngine * e)
{
  if (e->aligned) {
    /* rect's maps were the backend's before: taking them back cannot fail
     * for want of anything the backend did not have */
    backend_maps (e, e->rect, NULL);
    sd_rectification_free (e->aligned);
    e->aligned = NULL;
  }
  e->align_done = false;
  e->align_attempts = 0;
}

SdStatus
sd_engine_set_params (SdEngine * e, const SdParams * params, SdError * err)
{
  char msg[sizeof (err->message)];
  if (!sd_params_validate_for_run (params, msg, sizeof (msg)))
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT, "%s", msg);
  if (e->automatic) {
    /* the best backend for these parameters may be another one */
    const SdBackend *b = pick_backend ("auto", e->device_id, params, err);
    if (b != e->backend) {
      void *state = b->create (e->device_id, err);
      if (!state)
        return err ? err->status : SD_ERROR_BACKEND;
      if (e->rect && b->set_rectification (state, e->rect, err) != SD_OK) {
        b->destroy (state);
        return err ? err->status : SD_ERROR_BACKEND;
      }
      settle (e);
      e->backend->destroy (e->state);
      e->backend = b;
      e->state = state;
      /* the new backend has the calibration's maps */
      sd_rectification_free (e->aligned);
      e->aligned = NULL;
    }
  } else if (!backend_supports (e->backend, params, err)) {
    return err ? err->status : SD_ERROR_INVALID_ARGUMENT;
  }
  e->params = *params;
  forget_alignment (e);
  return SD_OK;
}

const SdParams *
sd_engine_get_params (const SdEngine * e)
{
  return &e->params;
}

SdStatus
sd_engine_set_rectification (SdEngine * e, const SdRectification * rect,
    SdError * err)
{
  SdRectification *copy = NULL;
  if (rect && !(copy = sd_rectification_copy (rect)))
    return sd_error_set (err, SD_ERROR_OUT_OF_MEMORY,
        "out of memory for %dx%d rectification maps", rect->width,
        rect->height);
  /* the pairs in flight were submitted with the old maps */
  if (e->backend->submit)
    settle (e);
  SdStatus st = e->backend->set_rectification (e->state, copy, err);
  if (st != SD_OK) {
    /* the backend keeps none: neither does the engine */
    e->backend->set_rectification (e->state, NULL, NULL);
    sd_rectification_free (copy);
    copy = NULL;
  }
  sd_rectification_free (e->rect);
  e->rect = copy;
  /* the backend has the new maps: the offset is measured on them anew */
  sd_rectification_free (e->aligned);
  e->aligned = NULL;
  e->align_done = false;
  e->align_attempts = 0;
  return st;
}

static SdStatus
check_rectification (const SdEngine * e, const SdPlane * left, SdError * err)
{
  if (e->rect && (left->width != e->rect->width
          || left->height != e->rect->height))
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "the rectification maps are for %dx%d images but the pair is %dx%d",
        e->rect->width, e->rect->height, left->width, left->height);
  return SD_OK;
}

static bool
plane_ok (const SdPlane * p)
{
  if (!p || !p->data || p->width <= 0 || p->height <= 0)
    return false;
  return p->stride >= (size_t) p->width *
      sd_pixel_layout (p->format)->bytes_per_pixel;
}

static SdStatus
check_pair (const SdPlane * left, const SdPlane * right, SdError * err)
{
  if (!plane_ok (left) || !plane_ok (right))
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "an image plane is empty or its stride is shorter than a row");
  if (left->width != right->width || left->height != right->height)
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "the left image is %dx%d but the right image is %dx%d; both must "
        "have the same size", left->width, left->height, right->width,
        right->height);
  if (left->format == SD_PIXEL_FLOAT || right->format == SD_PIXEL_FLOAT)
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "float planes are not accepted as input images");
  return SD_OK;
}

/* out, and confidence when not NULL, for a pair of that size computed with
 * or without (has_confidence) a confidence. */
static SdStatus
check_output (const SdPlane * out, const SdPlane * confidence, int width,
    int height, bool has_confidence, SdError * err)
{
  if (!plane_ok (out) || (confidence && !plane_ok (confidence)))
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "an image plane is empty or its stride is shorter than a row");
  if (out->width != width || out->height != height
      || out->format != SD_PIXEL_GRAY16)
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "the output must be a GRAY16 plane of the input size %dx%d",
        width, height);
  if (!confidence)
    return SD_OK;
  if (!has_confidence)
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "the pair was computed without a confidence (set the confidence "
        "parameter before submitting it)");
  if (confidence->width != width || confidence->height != height
      || confidence->format != SD_PIXEL_GRAY8)
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "the confidence must be a GRAY8 plane of the input size %dx%d",
        width, height);
  return SD_OK;
}

/* The parameters a pair width pixels wide runs with: the backends take a
 * disparity count, never the automatic 0. */
static SdParams
pair_params (const SdEngine * e, int width)
{
  SdParams p = e->params;
  p.num_disparities = sd_params_disparities (&p, width);
  return p;
}

/* The pair's luma in luma (left, then right, w x h each), from host
 * planes or, for a pair in device memory, from host copies of them. */
static SdStatus
pair_luma (SdEngine * e, const SdPlane * left, const SdPlane * right,
    bool device, uint8_t * luma, SdError * err)
{
  const size_t n = (size_t) left->width * left->height;
  if (!device) {
    sd_plane_to_luma (left, luma);
    sd_plane_to_luma (right, luma + n);
    return SD_OK;
  }
  SdPlane copy[2] = { *left, *right };
  const size_t left_bytes = left->stride * left->height;
  uint8_t *host = malloc (left_bytes + right->stride * right->height);
  if (!host)
    return sd_error_set (err, SD_ERROR_OUT_OF_MEMORY,
        "out of memory for a host copy of a %dx%d pair", left->width,
        left->height);
  copy[0].data = host;
  copy[1].data = host + left_bytes;
  SdStatus st = e->backend->download (e->state, left, copy[0].data, err);
  if (st == SD_OK)
    st = e->backend->download (e->state, right, copy[1].data, err);
  if (st == SD_OK) {
    sd_plane_to_luma (&copy[0], luma);
    sd_plane_to_luma (&copy[1], luma + n);
  }
  free (host);
  return st;
}

/* align-rows: on the first pair of its size since the parameters or the
 * maps changed, measures how far the right view's rows sit from the
 * left's, on the views as the backend sees them (rectified by the
 * calibration), and has the backend remap through maps that undo an
 * offset of SD_ROW_ALIGN_MIN_OFFSET or more somewhere across the frame.
 * A pair in device memory is measured on host copies of its views. */
static SdStatus
align_rows (SdEngine * e, const SdPlane * left, const SdPlane * right,
    bool device, SdError * err)
{
  const int w = left->width, h = left->height;
  const bool same_size = e->align_width == w && e->align_height == h;
  if (!e->params.align_rows || (e->align_done && same_size))
    return SD_OK;
  if (!same_size)
    e->align_attempts = 0;
  const size_t n = (size_t) w * h;
  uint8_t *luma = malloc (4 * n);
  if (!luma)
    return sd_error_set (err, SD_ERROR_OUT_OF_MEMORY,
        "out of memory for measuring the rows' offset of a %dx%d pair", w, h);
  SdStatus st = pair_luma (e, left, right, device, luma, err);
  if (st != SD_OK) {
    free (luma);
    return st;
  }
  uint8_t *views = luma;
  if (e->rect) {
    views = luma + 2 * n;
    sd_rectify_rows (e->rect->map[0], luma, views, w, h, 0, h);
    sd_rectify_rows (e->rect->map[1], luma + n, views + n, w, h, 0, h);
  }
  const SdParams p = pair_params (e, w);
  e->row_offset = sd_row_offset_measure (views, views + n, w, h,
      p.min_disparity, p.num_disparities);
  free (luma);
  SdRectification *aligned = NULL;
  if (e->row_offset.measured
      && sd_row_offset_largest (&e->row_offset, w, h) >=
      SD_ROW_ALIGN_MIN_OFFSET
      && !(aligned = sd_rectification_realign_right (e->rect, w, h,
              e->row_offset.offset, e->row_offset.slope,
              e->row_offset.scale)))
    return sd_error_set (err, SD_ERROR_OUT_OF_MEMORY,
        "out of memory for the maps that move a %dx%d view's rows", w, h);
  if (aligned || e->aligned) {
    st = backend_maps (e, aligned ? aligned : e->rect, err);
    if (st != SD_OK) {
      backend_maps (e, e->rect, NULL);
      sd_rectification_free (aligned);
      aligned = NULL;
    }
    sd_rectification_free (e->aligned);
    e->aligned = aligned;
    if (st != SD_OK)
      return st;
  }
  /* too few patches agreed: the next pairs try again, for a while */
  e->align_done = e->row_offset.measured
      || ++e->align_attempts >= SD_ROW_ALIGN_ATTEMPTS;
  e->align_width = w;
  e->align_height = h;
  return SD_OK;
}

SdRowOffset
sd_engine_row_offset (const SdEngine * e)
{
  return e->row_offset;
}

bool
sd_engine_rows_moved (const SdEngine * e)
{
  return e->aligned != NULL;
}

SdStatus
sd_engine_process (SdEngine * e, const SdPlane * left, const SdPlane * right,
    SdPlane * out, SdPlane * confidence, SdError * err)
{
  SdStatus st;
  if (e->in_flight)
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "%d pair%s in flight; collect %s before sd_engine_process",
        e->in_flight, e->in_flight == 1 ? " is" : "s are",
        e->in_flight == 1 ? "it" : "them");
  if ((st = check_pair (left, right, err)) != SD_OK
      || (st = check_rectification (e, left, err)) != SD_OK
      || (st = check_output (out, confidence, left->width, left->height,
              e->params.confidence, err)) != SD_OK)
    return st;
  if ((st = align_rows (e, left, right, false, err)) != SD_OK)
    return st;
  /* a synchronous backend writes out itself, without the pair buffer and
   * the copy out of it that submit and collect would cost */
  if (!e->backend->submit) {
    const SdParams p = pair_params (e, left->width);
    return e->backend->process (e->state, &p, left, right, out, confidence,
        err);
  }
  if ((st = sd_engine_submit (e, left, right, err)) != SD_OK)
    return st;
  return sd_engine_collect (e, out, confidence, err);
}

/* Whether the backend holds a pair in flight of another size. */
static bool
backend_holds_other_size (const SdEngine * e, int width, int height)
{
  for (int i = 0; i < e->in_flight; i++) {
    const SdPair *pair = &e->pairs[(e->oldest + i) % SD_ENGINE_MAX_IN_FLIGHT];
    if (!pair->settled && (pair->width != width || pair->height != height))
      return true;
  }
  return false;
}

/* sd_engine_submit, or sd_engine_submit_device when device is set. */
static SdStatus
submit (SdEngine * e, const SdPlane * left, const SdPlane * right,
    bool device, SdError * err)
{
  SdStatus st = check_pair (left, right, err);
  if (st == SD_OK)
    st = check_rectification (e, left, err);
  if (st != SD_OK)
    return st;
  if (device && !e->backend->submit_device)
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "the %s backend reads images from host memory, not from the GPU's",
        e->backend->name);
  if (e->in_flight == SD_ENGINE_MAX_IN_FLIGHT)
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "%d pairs are already in flight; collect one before submitting "
        "another", SD_ENGINE_MAX_IN_FLIGHT);
  if ((st = align_rows (e, left, right, device, err)) != SD_OK)
    return st;
  const int slot = (e->oldest + e->in_flight) % SD_ENGINE_MAX_IN_FLIGHT;
  SdPair *pair = &e->pairs[slot];
  pair->width = left->width;
  pair->height = left->height;
  pair->confidence = e->params.confidence;
  pair->error.status = SD_OK;
  const SdParams p = pair_params (e, left->width);
  if (e->backend->submit) {
    /* a backend holds buffers of one size at a time */
    if (backend_holds_other_size (e, pair->width, pair->height))
      settle (e);
    st = (device ? e->backend->submit_device : e->backend->submit) (e->state,
        slot, &p, left, right, err);
    pair->settled = false;
  } else {
    SdPlane plane, confidence;
    st = pair_buffer (pair, &plane, &confidence) ?
        e->backend->process (e->state, &p, left, right, &plane,
        pair_confidence (pair, &confidence), err)
        : pair_out_of_memory (pair, err);
    pair->settled = true;
  }
  if (st == SD_OK)
    e->in_flight++;
  return st;
}

SdStatus
sd_engine_submit (SdEngine * e, const SdPlane * left, const SdPlane * right,
    SdError * err)
{
  return submit (e, left, right, false, err);
}

SdStatus
sd_engine_submit_device (SdEngine * e, const SdPlane * left,
    const SdPlane * right, SdError * err)
{
  return submit (e, left, right, true, err);
}

SdStatus
sd_engine_collect (SdEngine * e, SdPlane * out, SdPlane * confidence,
    SdError * err)
{
  if (!e->in_flight)
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "no pair is in flight; submit one before collecting");
  const int slot = e->oldest;
  SdPair *pair = &e->pairs[slot];
  SdStatus st = check_output (out, confidence, pair->width, pair->height,
      pair->confidence, err);
  if (st != SD_OK)
    return st;
  if (!pair->settled) {
    st = e->backend->collect (e->state, slot, out, confidence, err);
  } else if (pair->error.status != SD_OK) {
    st = pair->error.status;
    if (err)
      *err = pair->error;
  } else {
    const size_t n = (size_t) pair->width * pair->height;
    for (int y = 0; y < pair->height; y++) {
      memcpy (sd_plane_row (out, y), pair->done + (size_t) y *
          pair->width * 2, (size_t) pair->width * 2);
      if (confidence)
        memcpy (sd_plane_row (confidence, y), pair->done + 2 * n +
            (size_t) y * pair->width, (size_t) pair->width);
    }
  }
  e->oldest = (slot + 1) % SD_ENGINE_MAX_IN_FLIGHT;
  e->in_flight--;
  return st;
}

void
sd_engine_discard (SdEngine * e)
{
  for (; e->in_flight; e->in_flight--) {
    if (!e->pairs[e->oldest].settled)
      e->backend->collect (e->state, e->oldest, NULL, NULL, NULL);
    e->oldest = (e->oldest + 1) % SD_ENGINE_MAX_IN_FLIGHT;
  }
}

int
sd_engine_in_flight (const SdEngine * e)
{
  return e->in_flight;
}

int
sd_engine_band_rows (const SdEngine * e)
{
  return e->backend->band_rows ? e->backend->band_rows (e->state) :
      e->params.band_rows;
}

bool
sd_engine_is_async (const SdEngine * e)
{
  return e->backend->submit != NULL;
}
