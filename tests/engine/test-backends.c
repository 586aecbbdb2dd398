/* Backend choice: cpu always works, auto falls back to the CPU without a
 * GPU, cuda without a device (or without CUDA in the build) is refused
 * with a sentence that says so, an unknown name is refused. */
#include <string.h>

#include "sd-engine.h"
#include "sd-test.h"

static const SdBackend *
backend_named (const char *name)
{
  for (const SdBackend * const *b = sd_backends (); *b; b++)
    if (!strcmp ((*b)->name, name))
      return *b;
  return NULL;
}

int
main (void)
{
  SdParams p;
  sd_params_init (&p);
  SdError err;

  SdEngine *cpu = sd_engine_new ("cpu", 0, &p, &err);
  SD_CHECK (cpu != NULL, "%s", err.message);
  SD_CHECK (!strcmp (sd_engine_backend_name (cpu), "cpu"), "%s",
      sd_engine_backend_name (cpu));
  sd_engine_free (cpu);

  const SdBackend *cuda = backend_named ("cuda");
  const bool have_gpu = cuda && cuda->available (0, NULL);
  SdEngine *any = sd_engine_new ("auto", 0, &p, &err);
  SD_CHECK (any != NULL, "%s", err.message);
  SD_CHECK (!strcmp (sd_engine_backend_name (any), have_gpu ? "cuda" :
          "cpu"), "auto chose %s", sd_engine_backend_name (any));
  sd_engine_free (any);

  if (!have_gpu) {
    SD_CHECK (sd_engine_new ("cuda", 0, &p, &err) == NULL,
        "cuda engine made without a device");
    SD_CHECK (err.status == (cuda ? SD_ERROR_NO_DEVICE :
            SD_ERROR_NO_BACKEND), "status %d", err.status);
    SD_CHECK (strstr (err.message, "CUDA") != NULL, "message: %s",
        err.message);
  }
  if (cuda) {
    /* a device number that cannot exist */
    SD_CHECK (sd_engine_new ("cuda", 4096, &p, &err) == NULL,
        "cuda engine made on device 4096");
    SD_CHECK (strstr (err.message, "CUDA") != NULL, "message: %s",
        err.message);
  }

  /* auto follows the parameters: an algorithm the GPU has no kernels for
   * runs on the CPU, and the engine moves back when it changes again */
  SdParams tiled = p;
  tiled.algorithm = SD_ALGORITHM_TILED_BP;
  const bool gpu_runs_tiled = have_gpu && (!cuda->supports
      || cuda->supports (&tiled, NULL));
  SdEngine *follow = sd_engine_new ("auto", 0, &tiled, &err);
  SD_CHECK (follow != NULL, "%s", err.message);
  SD_CHECK (!strcmp (sd_engine_backend_name (follow), gpu_runs_tiled ?
          "cuda" : "cpu"), "auto with tiled-bp chose %s",
      sd_engine_backend_name (follow));
  SD_CHECK (sd_engine_set_params (follow, &p, &err) == SD_OK, "%s",
      err.message);
  SD_CHECK (!strcmp (sd_engine_backend_name (follow), have_gpu ? "cuda" :
          "cpu"), "auto back on sgm chose %s",
      sd_engine_backend_name (follow));
  SD_CHECK (sd_engine_set_params (follow, &tiled, &err) == SD_OK, "%s",
      err.message);
  SD_CHECK (!strcmp (sd_engine_backend_name (follow), gpu_runs_tiled ?
          "cuda" : "cpu"), "auto on tiled-bp again chose %s",
      sd_engine_backend_name (follow));
  /* it still computes after the moves */
  uint8_t img[16 * 8] = { 0 };
  uint16_t out[16 * 8];
  for (int i = 0; i < 16 * 8; i++)
    img[i] = (uint8_t) (i * 37);
  SdPlane plane = { img, 16, 8, 16, SD_PIXEL_GRAY8 };
  SdPlane o = { out, 16, 8, 32, SD_PIXEL_GRAY16 };
  SD_CHECK (sd_engine_process (follow, &plane, &plane, &o, NULL, &err) == SD_OK,
      "%s", err.message);
  sd_engine_free (follow);
  if (have_gpu && !gpu_runs_tiled) {
    /* asked for by name, the GPU says what it cannot run */
    SD_CHECK (sd_engine_new ("cuda", 0, &tiled, &err) == NULL,
        "cuda engine made for tiled-bp");
    SD_CHECK (strstr (err.message, "tiled-bp") != NULL, "message: %s",
        err.message);
  }

  SD_CHECK (sd_engine_new ("opencl", 0, &p, &err) == NULL,
      "unknown backend accepted");
  SD_CHECK (strstr (err.message, "opencl") != NULL, "message: %s",
      err.message);
  return sd_test_exit ("test-backends");
}
