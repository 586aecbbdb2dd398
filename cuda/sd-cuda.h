/* The C API of the CUDA backend: common/ and the tests reach CUDA only
 * through these declarations. */
#ifndef SD_CUDA_H
#define SD_CUDA_H

#include "sd-engine.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const SdBackend sd_cuda_backend;

#ifdef __cplusplus
}
#endif

#endif
