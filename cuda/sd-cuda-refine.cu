/* After winner-takes-all: the left-right check, the 3x3 median of valid
 * values, the confidence, hole filling (after sd-cuda-speckle.cu), and the
 * output contract (16 * d, 0 = invalid), or with the guided median on, its
 * input (sd-cuda-guided-median.cu writes the output then). */
#include "sd-cuda-internal.h"
#include "sd-cuda-chain.cuh"
#include "sd-confidence.h"
#include "sd-edge-fill.h"
#include "sd-output.h"

#define SD_MEDIAN9_T int
#define SD_MEDIAN9_MIN min
#define SD_MEDIAN9_MAX max
#include "sd-median9.h"

/* The left disparity at (x, y) after the left-right check, and its
 * agreement |d - dR| into *diff (0 with the check off); the right
 * disparity dR is dmin + k of the right pixel's key (sum << 8 | k). */
__device__ __forceinline__ int
sd_checked (const int16_t * disp, const uint32_t * right_key, int lr,
    int dmin, size_t row, int x, int *diff)
{
  const int v = disp[row + x];
  *diff = 0;
  if (v == SD_DISP_INVALID || lr < 0)
    return v;
  const int d = (v + SD_SUBPIXEL_SCALE / 2) / SD_SUBPIXEL_SCALE;
  const int xr = x - d;
  if (xr < 0)
    return SD_DISP_INVALID;
  const uint32_t key = right_key[row + xr];
  *diff = abs (dmin + (int) (key & 0xff) - d);
  if (key == 0xffffffffu || *diff > lr)
    return SD_DISP_INVALID;
  return v;
}

/* The pixel's confidence from its final (median) value v, its margin and
 * its left-right agreement. */
__device__ __forceinline__ void
sd_write_confidence (uint8_t * conf, const uint8_t * margin, size_t at,
    int v, int lr, int diff)
{
  if (conf)
    conf[at] = v <= 0 ? 0 : sd_confidence_value (margin[at], lr, diff);
}

#define SD_CM_BX 32             /* check and median: block width */
#define SD_CM_BY 8              /* and height */

/* Left-right check and (optionally) the median: the lower median of the
 * valid values of the 3x3 window, as common/cpu/refine.c sorts them.  With
 * the median, the block first checks its tile and the ring around it into
 * shared memory, so that each pixel is checked once, not by each of its
 * nine windows. */
__global__ void
__launch_bounds__ (SD_CM_BX * SD_CM_BY)
sd_check_median_kernel (const int16_t * disp, const uint32_t * right_key,
    int lr, int dmin, int median, int16_t * dst, const uint8_t * margin,
    uint8_t * conf, int width, int height)
{
  sd_chain_wait ();
  __shared__ int16_t checked[SD_CM_BY + 2][SD_CM_BX + 2];
  const int x = blockIdx.x * SD_CM_BX + threadIdx.x;
  const int y = blockIdx.y * SD_CM_BY + threadIdx.y;
  if (median) {
    for (int i = threadIdx.y * SD_CM_BX + threadIdx.x;
        i < (SD_CM_BY + 2) * (SD_CM_BX + 2); i += SD_CM_BX * SD_CM_BY) {
      const int tx = i % (SD_CM_BX + 2), ty = i / (SD_CM_BX + 2);
      const int xx = blockIdx.x * SD_CM_BX + tx - 1;
      const int yy = blockIdx.y * SD_CM_BY + ty - 1;
      int unused;
      checked[ty][tx] = xx >= 0 && xx < width && yy >= 0 && yy < height ?
          sd_checked (disp, right_key, lr, dmin, (size_t) yy * width, xx,
          &unused) : SD_DISP_INVALID;
    }
    __syncthreads ();
  }
  if (x >= width || y >= height)
    return;
  const size_t row = (size_t) y * width;
  int diff;
  const int c = sd_checked (disp, right_key, lr, dmin, row, x, &diff);
  if (!median || c == SD_DISP_INVALID) {
    dst[row + x] = (int16_t) c;
    sd_write_confidence (conf, margin, row + x, c, lr, diff);
    return;
  }
  /* the median of the valid values among the nine (those outside the
   * image are invalid): the 1st, 3rd, ... invalid value goes low, the
   * others high (sd-median9.h) */
  int v[9];
  bool odd = false;
#pragma unroll
  for (int i = 0; i < 9; i++) {
    const int t = checked[threadIdx.y + i / 3][threadIdx.x + i % 3];
    const bool missing = t == SD_DISP_INVALID;
    odd ^= missing;
    v[i] = missing ? (odd ? INT_MIN : INT_MAX) : t;
  }
  const int out = sd_median9 (v);
  dst[row + x] = (int16_t) out;
  sd_write_confidence (conf, margin, row + x, out, lr, diff);
}

/* Calls take(t, v) for the row's first SD_EDGE_FILL_FIT valid pixels
 * from first (t = x - first) in the lanes that read them; returns how many
 * there were.  A warp's ballots count the valid pixels before each lane. */
template < typename Take > __device__ int
for_fit_pixels (const int16_t * src, int width, int first, int lane,
    Take take)
{
  int n = 0;
  for (int x0 = first; x0 < width && n < SD_EDGE_FILL_FIT; x0 += 32) {
    const int x = x0 + lane;
    const int v = x < width ? src[x] : 0;
    const unsigned valid = __ballot_sync (0xffffffffu, v >= 1);
    const int rank = n + __popc (valid & ((1u << lane) - 1));
    if (v >= 1 && rank < SD_EDGE_FILL_FIT)
      take (x - first, v);
    n = min (n + __popc (valid), SD_EDGE_FILL_FIT);
  }
  return n;
}

__device__ int64_t
warp_sum (int64_t v)
{
  for (int d = 16; d > 0; d >>= 1)
    v += __shfl_xor_sync (0xffffffffu, v, d);
  return v;
}

/* sd_fill_row_start() by a warp: *first gets the row's first valid pixel
 * (width if none), and the result says whether the holes before it take
 * the line *fit.  Integer sums, so the lanes' order changes nothing. */
__device__ bool
row_start_line (const int16_t * src, int width, int lane, SdEdgeFit * fit,
    int *first)
{
  *first = width;
  for (int x0 = 0; x0 < width; x0 += 32) {
    const int x = x0 + lane;
    const unsigned valid = __ballot_sync (0xffffffffu, x < width
        && src[x] >= 1);
    if (valid) {
      *first = x0 + __ffs (valid) - 1;
      break;
    }
  }
  if (*first == 0 || *first == width)
    return false;
  SdEdgeFit part = { 0, 0, 0, 0, 0 };
  const int n = for_fit_pixels (src, width, *first, lane,[&](int t, int v) {
        sd_edge_fit_add (&part, t, v);});
  if (n < SD_EDGE_FILL_FIT)
    return false;
  fit->n = warp_sum (part.n);
  fit->st = warp_sum (part.st);
  fit->sv = warp_sum (part.sv);
  fit->stt = warp_sum (part.stt);
  fit->stv = warp_sum (part.stv);
  bool near = true;
  for_fit_pixels (src, width, *first, lane,[&](int t, int v) {
        near = near && sd_edge_fit_near (fit, t, v);});
  return __all_sync (0xffffffffu, near);
}

/* One warp per row.  Hole filling needs, for every invalid pixel, the
 * nearest valid values on both sides: a left-to-right pass leaves the one
 * before in the output row, a right-to-left pass combines it with the one
 * after (ballots find the nearest valid lane in each 32-pixel chunk); the
 * holes a row starts with may take a line instead (row_start_line, its
 * values within [lo, hi]).  The rows of out get the output contract, or
 * with raw the filled disparities themselves (for the guided median after
 * it). */
__global__ void
sd_output_kernel (const int16_t * disp, int fill, int raw, int lo, int hi,
    uint64_t depth_scale, uint16_t * out, size_t out_pitch, int width,
    int height)
{
  sd_chain_wait ();
  const int lane = threadIdx.x & 31;
  const int y = blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5);
  if (y >= height)
    return;
  const int16_t *src = disp + (size_t) y * width;
  uint16_t *dst = (uint16_t *) ((uint8_t *) out + (size_t) y * out_pitch);
  if (!fill) {
    for (int x = lane; x < width; x += 32)
      dst[x] = sd_output_value (src[x], depth_scale);
    return;
  }
  SdEdgeFit fit;
  int first;
  const bool line = row_start_line (src, width, lane, &fit, &first);
  /* before: the last valid value at or left of x (carried across chunks);
   * a disparity of 0 is a hole, as sd_cpu_fill_holes() says */
  int carry = SD_DISP_INVALID;
  for (int x0 = 0; x0 < width; x0 += 32) {
    const int x = x0 + lane;
    const int v = x < width && src[x] != 0 ? src[x] : SD_DISP_INVALID;
    const unsigned valid = __ballot_sync (0xffffffffu, v != SD_DISP_INVALID);
    const unsigned upto = valid & (0xffffffffu >> (31 - lane));
    const int src_lane = upto ? 31 - __clz (upto) : 0;
    const int from = __shfl_sync (0xffffffffu, v, src_lane);
    const int before = upto ? from : carry;
    if (valid)
      carry = __shfl_sync (0xffffffffu, v, 31 - __clz (valid));
    if (x < width)
      dst[x] = (uint16_t) (int16_t) before;
  }
  __syncwarp ();
  carry = SD_DISP_INVALID;
  const int last0 = (width - 1) & ~31;
  for (int x0 = last0; x0 >= 0; x0 -= 32) {
    const int x = x0 + lane;
    const int v = x < width && src[x] != 0 ? src[x] : SD_DISP_INVALID;
    const unsigned valid = __ballot_sync (0xffffffffu, v != SD_DISP_INVALID);
    const unsigned from_here = valid & (0xffffffffu << lane);
    const int src_lane = from_here ? __ffs (from_here) - 1 : 0;
    const int from = __shfl_sync (0xffffffffu, v, src_lane);
    const int after = from_here ? from : carry;
    if (valid)
      carry = __shfl_sync (0xffffffffu, v, __ffs (valid) - 1);
    if (x < width) {
      int r;
      if (v != SD_DISP_INVALID) {
        r = v;
      } else if (line && x < first) {
        r = sd_edge_fit_value (&fit, x - first, lo, hi);
      } else {
        const int before = (int16_t) dst[x];
        r = before;
        if (r == SD_DISP_INVALID || (after != SD_DISP_INVALID
                && after < r))
          r = after;
      }
      dst[x] = raw ? (uint16_t) (int16_t) r : sd_output_value (r,
          depth_scale);
    }
  }
}

cudaError_t
sd_cuda_check_median (const SdParams * p, int16_t * disp,
    const uint32_t * right_key, const uint8_t * margin, int16_t * tmp,
    uint8_t * conf, int width, int height, cudaStream_t stream,
    int16_t ** result)
{
  *result = disp;
  const int lr_check = sd_params_lr_check (p);
  if (lr_check == SD_LR_CHECK_OFF && !p->median && !margin)
    return cudaSuccess;
  dim3 block (SD_CM_BX, SD_CM_BY);
  dim3 grid (sd_cuda_div_up (width, SD_CM_BX), sd_cuda_div_up (height,
          SD_CM_BY));
  *result = tmp;
  return sd_cuda_launch_chained (sd_check_median_kernel, grid, block, 0,
      stream, disp, right_key, lr_check, p->min_disparity, p->median, tmp,
      margin, margin ? conf : NULL, width, height);
}

cudaError_t
sd_cuda_finish (const SdParams * p, int16_t * disp, const uint8_t * guide,
    uint8_t * conf, void *speckle_work, int16_t * filled, uint16_t * out,
    size_t out_pitch, int width, int height, cudaStream_t stream)
{
  const bool fill = sd_params_fill_holes (p);
  if (fill) {
    const cudaError_t e = sd_cuda_remove_speckles (disp,
        p->confidence ? conf : NULL, speckle_work, width, height, stream);
    if (e != cudaSuccess)
      return e;
  }
  int lo, hi;
  sd_output_disparity_bounds (p, &lo, &hi);
  const uint64_t depth_scale = sd_output_depth_scale (p);
  const int rows = sd_cuda_div_up (height, 8);
  if (!p->guided_median) {
    return sd_cuda_launch_chained (sd_output_kernel, rows, 256, 0, stream,
        disp, fill, 0, lo, hi, depth_scale, out, out_pitch, width, height);
  }
  if (fill) {
    const cudaError_t e = sd_cuda_launch_chained (sd_output_kernel, rows,
        256, 0, stream, disp, 1, 1, lo, hi, depth_scale, (uint16_t *) filled,
        (size_t) width * sizeof (int16_t), width, height);
    if (e != cudaSuccess)
      return e;
    disp = filled;
  }
  return sd_cuda_guided_median (p, disp, guide, out, out_pitch, width,
      height, stream);
}
