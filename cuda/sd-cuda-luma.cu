/* Luma extraction: the element's input formats into packed GRAY8, with the
 * project's one RGB rule (sd_luma_from_rgb), the byte the layout names
 * (GRAY16's high byte, packed YUV's Y), or the top 8 of a 10- or 12-bit
 * sample, as sd_plane_luma_at() reads them. */
#include "sd-cuda-internal.h"

__global__ void
sd_luma_kernel (const uint8_t * src, size_t pitch, SdPixelLayout l,
    uint8_t * dst, int width, int height)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  const uint8_t *px = src + (size_t) y * pitch + (size_t) x *
      l.bytes_per_pixel;
  uint8_t v;
  if (l.luma < 0)
    v = (uint8_t) ((77u * px[l.r] + 150u * px[l.g] + 29u * px[l.b] +
            128u) >> 8);
  else if (!l.luma_shift)
    v = px[l.luma];
  else
    v = (uint8_t) min ((px[l.luma] | (unsigned) px[l.luma + 1] << 8) >>
        l.luma_shift, 255u);
  dst[(size_t) y * width + x] = v;
}

cudaError_t
sd_cuda_luma (const void *src, size_t pitch, SdPixelFormat format,
    uint8_t * dst, int width, int height, cudaStream_t stream)
{
  const SdPixelLayout *l = sd_pixel_layout (format);
  if (format == SD_PIXEL_GRAY8)
    return cudaMemcpy2DAsync (dst, (size_t) width, src, pitch,
        (size_t) width, (size_t) height, cudaMemcpyDeviceToDevice, stream);
  dim3 block (32, 8);
  dim3 grid (sd_cuda_div_up (width, 32), sd_cuda_div_up (height, 8));
  sd_luma_kernel <<< grid, block, 0, stream >>> ((const uint8_t *) src,
      pitch, *l, dst, width, height);
  return cudaGetLastError ();
}
