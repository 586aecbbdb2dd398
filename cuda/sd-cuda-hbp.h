/* sd-cuda-hbp.cu: hierarchical belief propagation on the GPU, the stage
 * that replaces census + SGM when params->algorithm is hbp. */
#ifndef SD_CUDA_HBP_H
#define SD_CUDA_HBP_H

#include "sd-cuda-internal.h"

/* Bytes of device workspace sd_cuda_hbp needs for a w x h frame. */
size_t sd_cuda_hbp_workspace_bytes (const SdParams * params, int w, int h);

/* images: two packed GRAY8 planes (left, then right; prefiltered);
 * census: their census signatures (two planes), read when params->cost is
 * census.  Writes disp (16 * d or SD_DISP_INVALID) and, when
 * params->lr_check is on, right_key (sd_cuda_refine's form).  Only
 * enqueues on stream. */
cudaError_t sd_cuda_hbp (const SdParams * params, const uint8_t * images,
    const uint64_t * census, void *workspace, int16_t * disp,
    uint32_t * right_key, int w, int h, cudaStream_t stream);

#endif
