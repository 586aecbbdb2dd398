/* The list of backends compiled into this build.  The CUDA backend is only
 * declared here: common/ knows it through its vtable alone. */
#include "sd-engine.h"

extern const SdBackend sd_cpu_backend;
extern const SdBackend sd_reference_backend;
#ifdef SD_HAVE_CUDA
extern const SdBackend sd_cuda_backend;
#endif

const SdBackend *const *
sd_backends (void)
{
  static const SdBackend *const list[] = {
    &sd_cpu_backend,
    &sd_reference_backend,
#ifdef SD_HAVE_CUDA
    &sd_cuda_backend,
#endif
    NULL
  };
  return list;
}
