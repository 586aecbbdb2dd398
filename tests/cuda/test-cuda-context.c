/* The cuda backend in a CUDA context that is not the device's primary one
 * (GStreamer's GstCudaContext makes its own with cuCtxCreate), reading
 * device planes of that context in place (sd_engine_submit_device): the
 * same disparity and confidence bits as host planes on the primary
 * context, two pairs in flight, padded rows, luma from a device RGB plane,
 * a right view whose rows align-rows moves (measured on host copies of the
 * device planes); and the refusal of device planes by the cpu backend.
 *
 * The driver API is loaded at run time, as GstCuda does, so the test needs
 * no libcuda to build.  Without a device or a driver it exits 77
 * (skipped). */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sd-engine.h"
#include "sd-synth.h"
#include "sd-test.h"

typedef int (*CuInit) (unsigned);
typedef int (*CuDeviceGet) (int *, int);
typedef int (*CuCtxCreate) (void **, unsigned, int);
typedef int (*CuCtxCurrent) (void *);
typedef int (*CuCtxPop) (void **);

static struct
{
  CuInit init;
  CuDeviceGet device_get;
  CuCtxCreate create;
  CuCtxCurrent push, destroy;
  CuCtxPop pop;
} cu;

static bool
load_driver (void)
{
  void *lib = dlopen ("libcuda.so.1", RTLD_NOW);
  if (!lib)
    return false;
  cu.init = (CuInit) dlsym (lib, "cuInit");
  cu.device_get = (CuDeviceGet) dlsym (lib, "cuDeviceGet");
  cu.create = (CuCtxCreate) dlsym (lib, "cuCtxCreate_v2");
  cu.push = (CuCtxCurrent) dlsym (lib, "cuCtxPushCurrent_v2");
  cu.pop = (CuCtxPop) dlsym (lib, "cuCtxPopCurrent_v2");
  cu.destroy = (CuCtxCurrent) dlsym (lib, "cuCtxDestroy_v2");
  return cu.init && cu.device_get && cu.create && cu.push && cu.pop
      && cu.destroy && cu.init (0) == 0;
}

enum
{ W = 160, H = 96 };

typedef struct
{
  uint16_t out[W * H];
  uint8_t conf[W * H];
} Result;

/* A device copy of a host plane, rows pitch bytes apart. */
static SdPlane
to_device (const SdPlane * host, size_t pitch)
{
  SdPlane d = *host;
  const size_t row = (size_t) host->width *
      sd_pixel_layout (host->format)->bytes_per_pixel;
  d.stride = pitch;
  SD_CHECK (cudaMalloc (&d.data, pitch * host->height) == cudaSuccess
      && cudaMemcpy2D (d.data, pitch, host->data, host->stride, row,
          host->height, cudaMemcpyHostToDevice) == cudaSuccess,
      "copying a plane to the device");
  return d;
}

/* One pair of device planes through e, submitted twice so that two are in
 * flight. */
static void
run_twice (SdEngine * e, const SdPlane * l, const SdPlane * r, Result * a,
    Result * b)
{
  SdError err;
  SdPlane oa = { a->out, W, H, W * 2, SD_PIXEL_GRAY16 };
  SdPlane ca = { a->conf, W, H, W, SD_PIXEL_GRAY8 };
  SdPlane ob = { b->out, W, H, W * 2, SD_PIXEL_GRAY16 };
  SdPlane cb = { b->conf, W, H, W, SD_PIXEL_GRAY8 };
  SD_CHECK (sd_engine_submit_device (e, l, r, &err) == SD_OK, "%s",
      err.message);
  SD_CHECK (sd_engine_submit_device (e, l, r, &err) == SD_OK, "%s",
      err.message);
  SD_CHECK (sd_engine_collect (e, &oa, &ca, &err) == SD_OK, "%s",
      err.message);
  SD_CHECK (sd_engine_collect (e, &ob, &cb, &err) == SD_OK, "%s",
      err.message);
}

static void
check_same (const Result * expect, const Result * got, const char *what)
{
  SD_CHECK (memcmp (expect->out, got->out, sizeof (expect->out)) == 0,
      "%s: the disparity differs from host planes", what);
  SD_CHECK (memcmp (expect->conf, got->conf, sizeof (expect->conf)) == 0,
      "%s: the confidence differs from host planes", what);
}

/* The right view two rows lower (align-rows): a device pair is measured
 * on host copies of its views and moved back as the same host pair is on
 * the cpu backend (which gives the cuda backend's bits; it leaves the
 * current context alone), the same bits.  right: the right view in line
 * (W x H, packed). */
static void
check_moved_rows (const SdParams * p, const SdPlane * host_left,
    const SdPlane * device_left, const uint8_t * right)
{
  static uint8_t moved[W * H];
  for (int y = 0; y < H; y++)
    memcpy (moved + y * W, right + (y < 2 ? 0 : y - 2) * W, W);
  static Result expect, got_a, got_b;
  SdError err;
  SdPlane oe = { expect.out, W, H, W * 2, SD_PIXEL_GRAY16 };
  SdPlane ce = { expect.conf, W, H, W, SD_PIXEL_GRAY8 };
  SdPlane hm = { moved, W, H, W, SD_PIXEL_GRAY8 };
  SdEngine *cpu = sd_engine_new ("cpu", 0, p, &err);
  SD_CHECK (cpu && sd_engine_process (cpu, host_left, &hm, &oe, &ce, &err)
      == SD_OK, "%s", err.message);
  SdEngine *e = sd_engine_new ("cuda", SD_DEVICE_CURRENT_CONTEXT, p, &err);
  SD_CHECK (e != NULL, "%s", err.message);
  if (!e || !cpu) {
    sd_engine_free (cpu);
    sd_engine_free (e);
    return;
  }
  SdPlane dm = to_device (&hm, 384);
  run_twice (e, device_left, &dm, &got_a, &got_b);
  check_same (&expect, &got_a, "device planes, rows moved");
  check_same (&expect, &got_b, "device planes, rows moved (2)");
  SD_CHECK (sd_engine_rows_moved (cpu) && sd_engine_rows_moved (e)
      && sd_engine_row_offset (e).offset ==
      sd_engine_row_offset (cpu).offset, "rows 2 lower: moved %d and %d, "
      "measured %+.3f on device planes and %+.3f on host planes",
      sd_engine_rows_moved (e), sd_engine_rows_moved (cpu),
      sd_engine_row_offset (e).offset, sd_engine_row_offset (cpu).offset);
  sd_engine_free (e);
  sd_engine_free (cpu);
  cudaFree (dm.data);
}

int
main (void)
{
  SdParams p;
  sd_params_init (&p);
  p.num_disparities = 32;
  p.confidence = true;
  SdError err;
  SdEngine *primary = sd_engine_new ("cuda", 0, &p, &err);
  if (!primary || !load_driver ()) {
    printf ("no CUDA device or driver: %s\n", primary ? "no libcuda" :
        err.message);
    sd_engine_free (primary);
    return SD_TEST_SKIP;
  }

  SdSynthPair scene;
  const SdSynthLayer layers[] = {
    {0, 0, 0, 0, 4, 0.05, 0},
    {W / 4, H / 4, W * 3 / 4, H * 3 / 4, 13, 0, 0},
  };
  SD_CHECK (sd_synth_render (&scene, W, H, layers, 2, 7), "render");
  uint8_t *rgb_left = malloc ((size_t) W * H * 3);
  for (int i = 0; i < W * H; i++)
    memset (rgb_left + 3 * i, scene.left[i], 3);
  SdPlane hl = { scene.left, W, H, W, SD_PIXEL_GRAY8 };
  SdPlane hr = { scene.right, W, H, W, SD_PIXEL_GRAY8 };
  SdPlane hrgb = { rgb_left, W, H, W * 3, SD_PIXEL_RGB };

  static Result expect, got_a, got_b;
  SdPlane oe = { expect.out, W, H, W * 2, SD_PIXEL_GRAY16 };
  SdPlane ce = { expect.conf, W, H, W, SD_PIXEL_GRAY8 };
  SD_CHECK (sd_engine_process (primary, &hl, &hr, &oe, &ce, &err) == SD_OK,
      "%s", err.message);

  /* a context of our own, current on this thread from here on */
  int dev = 0;
  void *ctx = NULL;
  SD_CHECK (cu.device_get (&dev, 0) == 0 && cu.create (&ctx, 0, dev) == 0,
      "cuCtxCreate failed");
  SdEngine *e = sd_engine_new ("cuda", SD_DEVICE_CURRENT_CONTEXT, &p, &err);
  SD_CHECK (e != NULL, "%s", err.message);
  if (e) {
    /* padded rows, as GstCudaMemory pitches them */
    SdPlane dl = to_device (&hl, 256), dr = to_device (&hr, 512);
    SdPlane drgb = to_device (&hrgb, 3 * W + 64);
    run_twice (e, &dl, &dr, &got_a, &got_b);
    check_same (&expect, &got_a, "device planes, first in flight");
    check_same (&expect, &got_b, "device planes, second in flight");
    /* luma from a device RGB plane */
    run_twice (e, &drgb, &dr, &got_a, &got_b);
    check_same (&expect, &got_a, "device RGB left");
    check_same (&expect, &got_b, "device RGB left (2)");
    sd_engine_free (e);
    check_moved_rows (&p, &hl, &dl, scene.right);

    SdEngine *cpu = sd_engine_new ("cpu", 0, &p, &err);
    SD_CHECK (sd_engine_submit_device (cpu, &dl, &dr, &err) ==
        SD_ERROR_INVALID_ARGUMENT, "device planes given to the cpu backend");
    SD_CHECK (strstr (err.message, "host memory") != NULL, "%s",
        err.message);
    SD_CHECK (sd_engine_in_flight (cpu) == 0, "a refused pair in flight");
    sd_engine_free (cpu);
    cudaFree (dl.data);
    cudaFree (dr.data);
    cudaFree (drgb.data);
  }
  void *popped = NULL;
  SD_CHECK (cu.pop (&popped) == 0 && popped == ctx, "our context was not "
      "current at the end");
  cu.destroy (ctx);

  /* the primary-context engine is untouched by all of it */
  SD_CHECK (sd_engine_process (primary, &hl, &hr, &oe, &ce, &err) == SD_OK,
      "%s", err.message);
  sd_engine_free (primary);
  free (rgb_left);
  sd_synth_free (&scene);
  return sd_test_exit ("test-cuda-context");
}
