/* The kernels of one pair follow each other on the engine's stream.  From
 * sm_90 each is launched as a programmatic dependent of the one before
 * (programmatic stream serialization): its blocks are placed on the SMs
 * while the one before drains its last blocks, and wait there, so the
 * launch gap between two kernels (1 to 2 us each, docs/performance.md)
 * overlaps that kernel's tail.  Every kernel launched this way calls
 * sd_chain_wait() before it touches memory the kernel before it writes or
 * reads: the wait covers the whole kernel before, whose own wait covered
 * the one before it, so each kernel sees everything enqueued ahead of it
 * as with plain launches.  The stages call it first; tiled-bp's diagonals
 * prepare their tile before it. */
#ifndef SD_CUDA_CHAIN_CUH
#define SD_CUDA_CHAIN_CUH

#include <cuda_runtime.h>

/* Waits until the kernel before has finished and its writes are visible,
 * then lets the next kernel's blocks be placed.  Returns at once where
 * the kernel was launched plainly, and before sm_90. */
__device__ __forceinline__ void
sd_chain_wait (void)
{
#if __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize ();
  cudaTriggerProgrammaticLaunchCompletion ();
#endif
}

/* kernel<<<grid, block, smem, stream>>>(args...), chained to the kernel
 * before it on stream when chained and the device has sm_90 or later
 * (otherwise a plain launch).  Returns the launch error. */
template < typename ... Params, typename ... Args > static cudaError_t
sd_cuda_launch (bool chained, void (*kernel) (Params ...), dim3 grid,
    dim3 block, size_t smem, cudaStream_t stream, Args ... args)
{
  int device, major;
  cudaError_t e = cudaGetDevice (&device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
        device);
  if (e != cudaSuccess)
    return e;
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = chained && major >= 9;
  cudaLaunchConfig_t config = { };
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = &attr;
  config.numAttrs = 1;
  return cudaLaunchKernelEx (&config, kernel, args ...);
}

/* The stages' launches: chained. */
template < typename ... Params, typename ... Args > static cudaError_t
sd_cuda_launch_chained (void (*kernel) (Params ...), dim3 grid, dim3 block,
    size_t smem, cudaStream_t stream, Args ... args)
{
  return sd_cuda_launch (true, kernel, grid, block, smem, stream, args ...);
}

#endif
