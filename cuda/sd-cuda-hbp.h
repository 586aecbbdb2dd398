/* sd-cuda-hbp.cu: hierarchical belief propagation on the GPU, the stage
 * that replaces census + SGM when params->algorithm is hbp. */
#ifndef SD_CUDA_HBP_H
#define SD_CUDA_HBP_H

#include "sd-cuda-graph.h"
#include "sd-cuda-internal.h"

/* Bytes of device workspace sd_cuda_hbp needs for a w x h frame. */
size_t sd_cuda_hbp_workspace_bytes (const SdParams * params, int w, int h);

/* images: two packed GRAY8 planes (left, then right; prefiltered);
 * census: their census signatures (two planes), read when params->cost is
 * census.  Reads the beliefs out into out.  cache: the engine's graph of
 * the propagation's launches, rebuilt when sizes, parameters or buffers
 * change.  Only enqueues on stream. */
cudaError_t sd_cuda_hbp (const SdParams * params, const uint8_t * images,
    const uint64_t * census, void *workspace, const SdCudaReadOut * out,
    int w, int h, SdCudaGraph ** cache, cudaStream_t stream);

#endif
