/* sd-cuda-graph.cu: a sequence of launches captured once into a CUDA graph
 * and replayed while what it was captured with stays the same.  The belief
 * propagation stages launch many small kernels a frame (a level's
 * iterations, a pass's diagonals); replayed as one graph they cost one
 * launch. */
#ifndef SD_CUDA_GRAPH_H
#define SD_CUDA_GRAPH_H

#include <cuda_runtime.h>
#include <stddef.h>

/* The graph an engine keeps between frames (NULL at first). */
typedef struct SdCudaGraph SdCudaGraph;

/* Enqueues the launches on stream from args (the graph's key). */
typedef cudaError_t (*SdCudaEnqueue) (const void *args, cudaStream_t stream);

/* Launches *cache when it was captured from the same args (size bytes,
 * compared bytewise: clear the struct before filling it); otherwise
 * captures enqueue (args, stream) into a new graph that replaces *cache,
 * and launches that.  Only enqueues on stream. */
cudaError_t sd_cuda_graph_launch (SdCudaGraph ** cache, const void *args,
    size_t size, SdCudaEnqueue enqueue, cudaStream_t stream);

void sd_cuda_graph_free (SdCudaGraph * graph);

#endif
