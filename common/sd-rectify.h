/* Undistort-and-rectify maps and the bilinear remap that applies them: the
 * first stage of the pipeline when the element has a calibration.
 *
 * The maps are built once per calibration and size, on the host, in
 * double; each rectified pixel stores where it comes from in the raw image
 * in fixed point (1/256 pixel).  The remap is integer arithmetic in one
 * inline function that the CPU and CUDA backends share, so both give the
 * same bits. */
#ifndef SD_RECTIFY_H
#define SD_RECTIFY_H

#include <stddef.h>
#include <stdint.h>

#include "sd-calib.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SD_RECTIFY_FRAC_BITS 8
#define SD_RECTIFY_ONE (1 << SD_RECTIFY_FRAC_BITS)

typedef struct
{
  int width, height;
  /* per view (0 left, 1 right), per rectified pixel in raster order, the
   * source position (x, y) in 1/256 pixel, clamped into the raw image:
   * what falls outside reads the nearest edge pixel, as every window of the
   * pipeline does */
  int32_t *map[2];
  /* the rectified pair's focal length at this size (pixels) and baseline
   * (millimetres), for depth output; 0 where the calibration has none */
  double focal_length, baseline;
  /* a number no other rectification in this process has: backends that
   * copy the maps elsewhere (the GPU) know when they changed */
  uint64_t id;
} SdRectification;

/* Builds the maps of calib for width x height images.  A calibration made
 * at another resolution of the same aspect ratio is scaled (intrinsics and
 * projections, about pixel centres); another aspect ratio is an error.  A
 * calibration that does not say its size is taken to be for this one.
 * Returns NULL with a sentence in msg. */
SdRectification *sd_rectification_new (const SdStereoCalib * calib,
    int width, int height, char *msg, size_t msg_size);
SdRectification *sd_rectification_copy (const SdRectification * rect);
/* rect's maps (identity maps when rect is NULL) with the right view read
 * turned, scaled and moved: at (x, y), offset + slope (x - (width - 1) / 2)
 * + scale (y - (height - 1) / 2) rows lower, the slope taken as a turn
 * and the scale as one of both coordinates, about the frame's centre.
 * What brings a right view whose rows sit that far from the left's
 * (sd-row-align.h) back into line.  Returns NULL when out of memory. */
SdRectification *sd_rectification_realign_right (const SdRectification *
    rect, int width, int height, double offset, double slope, double scale);
void sd_rectification_free (SdRectification * rect);

/* Remaps rows y0 .. y1 - 1 of one view: dst (width x height, packed) from
 * src (the raw view, packed) through map (that view's). */
void sd_rectify_rows (const int32_t * map, const uint8_t * src, uint8_t * dst,
    int width, int height, int y0, int y1);

/* The map of an image component subsampled by 2^sub_x across and 2^sub_y
 * down (the chroma of I420, NV12, YUY2...), from map, the full-resolution
 * view's (width x height): each component sample reads where the view's
 * map reads its centre, chroma sited at the centre of the pixels it
 * covers.  Its grid is ceil(width / 2^sub_x) x ceil(height / 2^sub_y),
 * stored in *cwidth and *cheight.  sub_x = sub_y = 0 gives a copy of map.
 * Returns NULL when out of memory; free() it. */
int32_t *sd_rectify_map_subsampled (const int32_t * map, int width,
    int height, int sub_x, int sub_y, int *cwidth, int *cheight);

/* Remaps one 8-bit component of an image through map (the component's
 * grid, width x height), rows over threads: the component's sample (x, y)
 * is src[y * src_stride + x * pixel_stride], and likewise in dst (packed
 * and planar formats alike: a plane, or one byte of each pixel).  The
 * reference; sd_fast_rectify_component (fast/sd-fast.h) gives its bits
 * faster. */
void sd_rectify_component (const int32_t * map, const uint8_t * src,
    int src_stride, uint8_t * dst, int dst_stride, int pixel_stride,
    int width, int height);
/* The same, rows y0 .. y1 - 1 only, on the calling thread. */
void sd_rectify_component_rows (const int32_t * map, const uint8_t * src,
    int src_stride, uint8_t * dst, int dst_stride, int pixel_stride,
    int width, int height, int y0, int y1);

/* The same for a component of 16-bit samples (strides in bytes, even):
 * the value is the `depth` bits from bit `shift` of the sample (P010's 10
 * bits from bit 6, I420_10LE's from bit 0), remapped as a value of its own
 * and written back at the same place, the other bits 0. */
void sd_rectify_component16 (const int32_t * map, const uint16_t * src,
    int src_stride, uint16_t * dst, int dst_stride, int pixel_stride,
    int depth, int shift, int width, int height);
/* The same, rows y0 .. y1 - 1 only, on the calling thread. */
void sd_rectify_component16_rows (const int32_t * map, const uint16_t * src,
    int src_stride, uint16_t * dst, int dst_stride, int pixel_stride,
    int depth, int shift, int width, int height, int y0, int y1);

#ifdef __CUDACC__
#define SD_RECTIFY_FN __host__ __device__ static inline
#else
#define SD_RECTIFY_FN static inline
#endif

/* Where the bilinear sample at (mx, my) in 1/256 pixel reads, both inside
 * the image (the maps are clamped): the offsets of its four taps, the
 * right and lower ones repeating the edge, for sample (x, y) at
 * y * stride + x * pixel_stride (in samples), and the fractions. */
typedef struct
{
  size_t p00, p01, p10, p11;
  uint32_t fx, fy;
} SdRectifyTaps;

SD_RECTIFY_FN SdRectifyTaps
sd_rectify_taps (size_t stride, int pixel_stride, int width, int height,
    int32_t mx, int32_t my)
{
  const int x0 = mx >> SD_RECTIFY_FRAC_BITS, y0 = my >> SD_RECTIFY_FRAC_BITS;
  const int x1 = x0 + 1 < width ? x0 + 1 : x0;
  const int y1 = y0 + 1 < height ? y0 + 1 : y0;
  const size_t r0 = (size_t) y0 * stride, r1 = (size_t) y1 * stride;
  const size_t a = (size_t) x0 * pixel_stride, b = (size_t) x1 * pixel_stride;
  SdRectifyTaps t;
  t.p00 = r0 + a;
  t.p01 = r0 + b;
  t.p10 = r1 + a;
  t.p11 = r1 + b;
  t.fx = (uint32_t) (mx & (SD_RECTIFY_ONE - 1));
  t.fy = (uint32_t) (my & (SD_RECTIFY_ONE - 1));
  return t;
}

/* The taps' values blended across, then down, rounded to nearest: exact
 * in 32 bits for samples of up to 16 bits (65535 * 256 * 256 + 32768 <
 * 2^32). */
SD_RECTIFY_FN uint32_t
sd_rectify_blend (SdRectifyTaps t, uint32_t v00, uint32_t v01, uint32_t v10,
    uint32_t v11)
{
  const uint32_t top = v00 * (SD_RECTIFY_ONE - t.fx) + v01 * t.fx;
  const uint32_t bottom = v10 * (SD_RECTIFY_ONE - t.fx) + v11 * t.fx;
  return (top * (SD_RECTIFY_ONE - t.fy) + bottom * t.fy +
      (1u << (2 * SD_RECTIFY_FRAC_BITS - 1))) >> (2 * SD_RECTIFY_FRAC_BITS);
}

/* The bilinear sample at (mx, my) of an 8-bit image whose sample (x, y)
 * is src[y * stride + x * pixel_stride]. */
SD_RECTIFY_FN uint8_t
sd_rectify_sample_strided (const uint8_t * src, size_t stride,
    int pixel_stride, int width, int height, int32_t mx, int32_t my)
{
  const SdRectifyTaps t = sd_rectify_taps (stride, pixel_stride, width,
      height, mx, my);
  return (uint8_t) sd_rectify_blend (t, src[t.p00], src[t.p01], src[t.p10],
      src[t.p11]);
}

/* The bilinear sample at (mx, my) of a component of 16-bit samples whose
 * value is the depth bits from bit shift (P010's 10 bits from bit 6),
 * sample (x, y) at src[y * stride + x * pixel_stride]: the value blended
 * on its own bits and put back at them, the sample's other bits 0. */
SD_RECTIFY_FN uint16_t
sd_rectify_sample16 (const uint16_t * src, size_t stride, int pixel_stride,
    int width, int height, int depth, int shift, int32_t mx, int32_t my)
{
  const uint32_t mask = (1u << depth) - 1;
  const SdRectifyTaps t = sd_rectify_taps (stride, pixel_stride, width,
      height, mx, my);
  return (uint16_t) (sd_rectify_blend (t, (src[t.p00] >> shift) & mask,
          (src[t.p01] >> shift) & mask, (src[t.p10] >> shift) & mask,
          (src[t.p11] >> shift) & mask) << shift);
}

/* The same in a packed 8-bit plane (the pipeline's luma). */
SD_RECTIFY_FN uint8_t
sd_rectify_sample (const uint8_t * src, int width, int height, int32_t mx,
    int32_t my)
{
  return sd_rectify_sample_strided (src, (size_t) width, 1, width, height,
      mx, my);
}

#ifdef __cplusplus
}
#endif

#endif
