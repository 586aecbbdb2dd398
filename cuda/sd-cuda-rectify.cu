/* Undistort and rectify on the GPU, through the functions the CPU runs
 * too (sd-rectify.h), so both give the same bits: the pipeline's two luma
 * planes (its calibration stage), and the components of frames already in
 * device memory (stereorectify on CUDA memory, sd-cuda.h). */
#include <stdlib.h>

#include "sd-cuda-internal.h"
#include "sd-cuda-pipeline.h"
#include "sd-cuda.h"
#include "sd-rectify.h"

/* One thread a pixel, blockIdx.z the view: a map entry is one 8-byte
 * load, and the four taps of neighbouring threads share cache lines. */
__global__ void
sd_rectify_kernel (const int2 * maps, const uint8_t * raw, uint8_t * out,
    int width, int height)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= width)
    return;
  const size_t plane = (size_t) width * height;
  const size_t i = (size_t) y * width + x;
  const int2 m = maps[blockIdx.z * plane + i];
  out[blockIdx.z * plane + i] = sd_rectify_sample (raw + blockIdx.z * plane,
      width, height, m.x, m.y);
}

cudaError_t
sd_cuda_rectify (const int32_t * maps, const uint8_t * raw, uint8_t * out,
    int width, int height, cudaStream_t stream)
{
  const int threads = 128;
  dim3 grid (sd_cuda_div_up (width, threads), height, 2);
  sd_rectify_kernel <<< grid, threads, 0, stream >>> ((const int2 *) maps,
      raw, out, width, height);
  return cudaGetLastError ();
}

/* A part as the kernel reads it: its map on the device. */
typedef struct
{
  const int2 *map;
  const uint8_t *src;
  uint8_t *dst;
  int src_stride, dst_stride, pixel_stride, depth, shift, width, height;
} SdRemapLaunchPart;

typedef struct
{
  SdRemapLaunchPart part[SD_REMAP_MAX_PARTS];
} SdRemapLaunch;

/* A frame's parts in one launch (blockIdx.z the part), a thread a sample.
 * A part's sample (x, y) is at y * stride + x * pixel_stride bytes. */
__global__ void
sd_remap_kernel (const SdRemapLaunch launch)
{
  const SdRemapLaunchPart p = launch.part[blockIdx.z];
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= p.width || y >= p.height)
    return;
  const int2 m = p.map[(size_t) y * p.width + x];
  uint8_t *dst = p.dst + (size_t) y * p.dst_stride +
      (size_t) x * p.pixel_stride;
  if (p.depth <= 8)
    *dst = sd_rectify_sample_strided (p.src, (size_t) p.src_stride,
        p.pixel_stride, p.width, p.height, m.x, m.y);
  else
    *(uint16_t *) dst = sd_rectify_sample16 ((const uint16_t *) p.src,
        (size_t) p.src_stride / 2, p.pixel_stride / 2, p.width, p.height,
        p.depth, p.shift, m.x, m.y);
}

/* The host maps the parts named, each with its copy on the device (a
 * frame has at most two grids: the view's and its chroma's). */
#define SD_REMAP_MAPS 2

struct SdCudaRemap
{
  const int32_t *host[SD_REMAP_MAPS];
  int2 *device[SD_REMAP_MAPS];
  cudaStream_t stream;
};

SdCudaRemap *
sd_cuda_remap_new (SdError * err)
{
  SdCudaRemap *remap = (SdCudaRemap *) calloc (1, sizeof (SdCudaRemap));
  cudaError_t e;

  if (!remap) {
    sd_error_set (err, SD_ERROR_OUT_OF_MEMORY, "Out of host memory.");
    return NULL;
  }
  e = cudaStreamCreateWithFlags (&remap->stream, cudaStreamNonBlocking);
  if (e != cudaSuccess) {
    sd_cuda_fail (err, e, "creating the remap's stream");
    free (remap);
    return NULL;
  }
  return remap;
}

void
sd_cuda_remap_free (SdCudaRemap * remap)
{
  if (!remap)
    return;
  for (int i = 0; i < SD_REMAP_MAPS; i++)
    cudaFree (remap->device[i]);
  cudaStreamDestroy (remap->stream);
  free (remap);
}

/* part's map on the device, copied there the first time it is named. */
static SdStatus
device_map (SdCudaRemap * remap, const SdRemapPart * part, const int2 ** out,
    SdError * err)
{
  const size_t bytes = 2 * sizeof (int32_t) * part->width * part->height;
  int i;

  for (i = 0; i < SD_REMAP_MAPS && remap->host[i]; i++)
    if (remap->host[i] == part->map) {
      *out = remap->device[i];
      return SD_OK;
    }
  if (i == SD_REMAP_MAPS)
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "A frame's parts name more than %d maps.", SD_REMAP_MAPS);
  SD_CUDA_CHECK (cudaMalloc ((void **) &remap->device[i], bytes),
      "allocating a rectification map on the device");
  const cudaError_t e = cudaMemcpy (remap->device[i], part->map, bytes,
      cudaMemcpyHostToDevice);
  if (e != cudaSuccess) {
    cudaFree (remap->device[i]);
    remap->device[i] = NULL;
    return sd_cuda_fail (err, e, "copying a rectification map");
  }
  remap->host[i] = part->map;
  *out = remap->device[i];
  return SD_OK;
}

SdStatus
sd_cuda_remap (SdCudaRemap * remap, const SdRemapPart * parts, int n_parts,
    SdError * err)
{
  const int threads = 128;
  SdRemapLaunch launch;
  int width = 0, height = 0;

  if (n_parts < 1 || n_parts > SD_REMAP_MAX_PARTS)
    return sd_error_set (err, SD_ERROR_INVALID_ARGUMENT,
        "%d parts to remap (1 to %d).", n_parts, SD_REMAP_MAX_PARTS);
  for (int i = 0; i < n_parts; i++) {
    const SdRemapPart *in = &parts[i];
    SdRemapLaunchPart *p = &launch.part[i];
    SdStatus st = device_map (remap, in, &p->map, err);

    if (st != SD_OK)
      return st;
    p->src = (const uint8_t *) in->src;
    p->dst = (uint8_t *) in->dst;
    p->src_stride = in->src_stride;
    p->dst_stride = in->dst_stride;
    p->pixel_stride = in->pixel_stride;
    p->depth = in->depth;
    p->shift = in->shift;
    p->width = in->width;
    p->height = in->height;
    width = in->width > width ? in->width : width;
    height = in->height > height ? in->height : height;
  }
  dim3 grid (sd_cuda_div_up (width, threads), height, n_parts);
  sd_remap_kernel <<< grid, threads, 0, remap->stream >>> (launch);
  SD_CUDA_CHECK (cudaGetLastError (), "starting the remap");
  /* GStreamer 1.22's CUDA memory carries no stream for the next element to
   * wait on, so the frame must be written when the element pushes it */
  SD_CUDA_CHECK (cudaStreamSynchronize (remap->stream), "remapping a frame");
  return SD_OK;
}
