/* Launches captured into a CUDA graph and replayed (see sd-cuda-graph.h). */
#include <stdlib.h>
#include <string.h>

#include "sd-cuda-graph.h"

struct SdCudaGraph
{
  cudaGraphExec_t exec;
  size_t size;
  unsigned char args[];         /* what it was captured from */
};

void
sd_cuda_graph_free (SdCudaGraph * g)
{
  if (g && g->exec)
    cudaGraphExecDestroy (g->exec);
  free (g);
}

cudaError_t
sd_cuda_graph_launch (SdCudaGraph ** cache, const void *args, size_t size,
    SdCudaEnqueue enqueue, cudaStream_t stream)
{
  if (*cache && (*cache)->size == size && memcmp ((*cache)->args, args,
          size) == 0)
    return cudaGraphLaunch ((*cache)->exec, stream);
  sd_cuda_graph_free (*cache);
  *cache = NULL;
  /* thread-local: another engine's thread may enqueue meanwhile */
  cudaError_t e = cudaStreamBeginCapture (stream,
      cudaStreamCaptureModeThreadLocal);
  if (e != cudaSuccess)
    return e;
  e = enqueue (args, stream);
  cudaGraph_t graph;
  const cudaError_t end = cudaStreamEndCapture (stream, &graph);
  if (e == cudaSuccess)
    e = end;
  else if (end == cudaSuccess)
    cudaGraphDestroy (graph);
  if (e != cudaSuccess)
    return e;
  SdCudaGraph *g = (SdCudaGraph *) calloc (1, sizeof (*g) + size);
  if (!g)
    e = cudaErrorMemoryAllocation;
  else
    e = cudaGraphInstantiate (&g->exec, graph, 0);
  cudaGraphDestroy (graph);
  if (e != cudaSuccess) {
    sd_cuda_graph_free (g);
    return e;
  }
  g->size = size;
  memcpy (g->args, args, size);
  *cache = g;
  return cudaGraphLaunch (g->exec, stream);
}
