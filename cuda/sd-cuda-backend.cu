/* The CUDA SdBackend.  Until the CUDA pipeline lands it only reports
 * whether a device exists, and refuses to process with a clear message. */
#include <cuda_runtime.h>

#include "sd-cuda.h"

static bool
cuda_available (int device_id, SdError * err)
{
  int count = 0;
  cudaError_t e = cudaGetDeviceCount (&count);
  if (e != cudaSuccess || count == 0) {
    sd_error_set (err, SD_ERROR_NO_DEVICE,
        "no CUDA device is available (%s); use backend=cpu or auto",
        e != cudaSuccess ? cudaGetErrorString (e) : "none found");
    return false;
  }
  if (device_id < 0 || device_id >= count) {
    sd_error_set (err, SD_ERROR_NO_DEVICE,
        "CUDA device %d does not exist: this machine has %d", device_id,
        count);
    return false;
  }
  return true;
}

static void *
cuda_create (int device_id, SdError * err)
{
  (void) device_id;
  sd_error_set (err, SD_ERROR_NO_BACKEND,
      "the CUDA pipeline is not implemented yet; use backend=cpu");
  return NULL;
}

static SdStatus
cuda_process (void *state, const SdParams * params, const SdPlane * left,
    const SdPlane * right, SdPlane * out, SdError * err)
{
  (void) state;
  (void) params;
  (void) left;
  (void) right;
  (void) out;
  return sd_error_set (err, SD_ERROR_NO_BACKEND,
      "the CUDA pipeline is not implemented yet");
}

static void
cuda_destroy (void *state)
{
  (void) state;
}

extern "C" const SdBackend sd_cuda_backend = {
  "cuda", cuda_available, cuda_create, cuda_process, cuda_destroy,
};
