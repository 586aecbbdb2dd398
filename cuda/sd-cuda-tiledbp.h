/* sd-cuda-tiledbp.cu: tiled belief propagation on the GPU, the stage that
 * replaces census + SGM when params->algorithm is tiled-bp. */
#ifndef SD_CUDA_TILEDBP_H
#define SD_CUDA_TILEDBP_H

#include "sd-cuda-graph.h"
#include "sd-cuda-internal.h"

/* The most disparities the tile kernels hold in registers. */
#define SD_CUDA_TILED_BP_MAX_DISPARITIES 64
static_assert (SD_TILED_BP_AUTO_DISPARITIES <= SD_CUDA_TILED_BP_MAX_DISPARITIES,
    "the automatic disparity range of tiled-bp must run on the GPU");

/* Whether the tile kernels run params on a device whose blocks may use
 * max_smem bytes of shared memory; otherwise says why (the tile size and
 * disparity range that fit) in err. */
bool sd_cuda_tiled_bp_fits (const SdParams * params, int max_smem,
    SdError * err);

/* Bytes of device workspace sd_cuda_tiled_bp needs for a w x h frame. */
size_t sd_cuda_tiled_bp_workspace_bytes (const SdParams * params, int w,
    int h);

/* images: two packed GRAY8 planes (left, then right; prefiltered);
 * census: their census signatures, read when params->cost is census (as
 * sd_cuda_hbp).  Reads the beliefs out into out.  cache: the engine's
 * graph of the passes' launches, rebuilt when sizes or parameters change.
 * Only enqueues on stream. */
cudaError_t sd_cuda_tiled_bp (const SdParams * params,
    const uint8_t * images, const uint64_t * census, void *workspace,
    const SdCudaReadOut * out, int w, int h, const SdCudaDeviceInfo * info,
    SdCudaGraph ** cache, cudaStream_t stream);

#endif
