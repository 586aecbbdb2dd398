/* Winner-takes-all with the uniqueness test and subpixel refinement, the
 * margin of the confidence, and the right image's disparity, from the path
 * volumes of sd-cuda-sgm.cu.
 *
 * A block takes a run of SD_WTA_TILE pixels of one row.  Each lane group
 * sums the paths of one pixel at a time (lanes = disparities, as in the
 * aggregation), picks the winner with group reductions, and leaves the sums
 * in shared memory.  The right disparity of right pixel xr is the argmin
 * over k of S(xr + dmin + k, k), a diagonal that crosses tiles: each tile
 * contributes the minimum of its part as (sum << 8 | k), and atomicMin
 * keeps the smallest, which is the reference's first minimum. */
#include "sd-cuda-sgm.cuh"
#include "sd-cuda-chain.cuh"
#include "sd-confidence.h"

#define SD_WTA_TILE 64
#define SD_WTA_WARPS 4

typedef struct
{
  const uint8_t *volume;
  size_t path_stride;
  int16_t *disp;
  uint8_t *margin;
  uint32_t *right_key;
  int width, height, D, dmin, dp;
  int uniqueness, subpixel, lr;
} SdWtaArgs;

/* The volumes to add: NS 8-bit ones, then a 16-bit sum when SUM16 (layouts
 * of sd_cuda_sgm_volume_bytes). */
template < int LANES, int DPL, int NS, bool SUM16 > __global__ void
__launch_bounds__ (32 * SD_WTA_WARPS)
sd_wta_kernel (const SdWtaArgs a)
{
  sd_chain_wait ();
  const int NP = (DPL + 1) / 2;
  const int PITCH = NP * LANES + 1;     /* words per pixel: no bank conflicts */
  const int GROUPS = SD_WTA_WARPS * (32 / LANES);
  extern __shared__ uint32_t tile[];
  const int lane = threadIdx.x & 31;
  const int g = lane & (LANES - 1);
  const uint32_t gmask = sd_group_mask < LANES > (lane);
  const int group = (threadIdx.x >> 5) * (32 / LANES) + lane / LANES;
  const int x0 = blockIdx.x * SD_WTA_TILE, y = blockIdx.y;
  const int w = a.width, D = a.D, dmin = a.dmin;
  const size_t row = (size_t) y * w;
  const int n = min (SD_WTA_TILE, w - x0);
  const uint16_t *vol16 = (const uint16_t *) (a.volume + NS * a.path_stride);

  /* two pixels per group and round: their reads are in flight together */
  for (int i0 = group; i0 < n; i0 += 2 * GROUPS) {
    uint32_t S2[2][NP];
#pragma unroll
    for (int u = 0; u < 2; u++) {
      const int i = min (i0 + u * GROUPS, n - 1);
      const size_t cell = (row + x0 + i) * a.dp + g * DPL;
      SdBytes < DPL > b[NS > 0 ? NS : 1];
#pragma unroll
      for (int s = 0; s < NS; s++)
        b[s] = sd_load_u8 < DPL, true > (a.volume + s * a.path_stride + cell);
      SdHalves < DPL > sum = { };
      if (SUM16)
        sum = sd_load_u16 < DPL > (vol16 + cell);
#pragma unroll
      for (int p = 0; p < NP; p++)
        S2[u][p] = sum.w[p];
#pragma unroll
      for (int s = 0; s < NS; s++)
        sd_add_u8 < DPL > (S2[u], b[s]);
    }
#pragma unroll
    for (int u = 0; u < 2; u++) {
      const int i = i0 + u * GROUPS;
      if (i >= n)
        break;
      const int x = x0 + i;
      const uint32_t (&S)[NP] = S2[u];

      /* the smallest sum, the smallest index on ties */
      uint32_t keys[DPL], key = SD_FULL_MASK;
#pragma unroll
      for (int j = 0; j < DPL; j++) {
        const int k = g + LANES * j;
        const uint32_t s = j & 1 ? S[j / 2] >> 16 : S[j / 2] & 0xffff;
        keys[j] = k < D ? (s << 8 | (uint32_t) k) : SD_FULL_MASK;
        key = min (key, keys[j]);
      }
      key = sd_group_min < LANES > (key, gmask);
      const int best = key & 0xff;
      const int best_sum = key >> 8;
      /* uniqueness and the confidence margin: the smallest sum more than
       * one index away, looked for only where one of them is asked (the
       * default asks neither) */
      uint32_t m2 = SD_FULL_MASK;
      if (a.uniqueness != 0 || a.margin) {
#pragma unroll
        for (int j = 0; j < DPL; j++) {
          const int k = g + LANES * j;
          if (abs (k - best) > 1 && keys[j] != SD_FULL_MASK)
            m2 = min (m2, keys[j] >> 8);
        }
        m2 = sd_group_min < LANES > (m2, gmask);
      }
      const int kl = max (best - 1, 0), kr = min (best + 1, D - 1);
      const int sl = __shfl_sync (gmask, sd_slot < DPL > (S, kl / LANES),
          kl & (LANES - 1), LANES);
      const int sr = __shfl_sync (gmask, sd_slot < DPL > (S, kr / LANES),
          kr & (LANES - 1), LANES);
      if (g == 0) {
        const bool unique = a.uniqueness == 0 || m2 == SD_FULL_MASK
            || !((int) m2 * (100 - a.uniqueness) < best_sum * 100);
        int value = (dmin + best) * SD_SUBPIXEL_SCALE;
        if (a.subpixel && best > 0 && best < D - 1) {
          const int denom = max (sl + sr - 2 * best_sum, 1);
          value += sd_div_round ((sl - sr) * SD_SUBPIXEL_SCALE, 2 * denom);
        }
        if (x < dmin || !unique)
          value = SD_DISP_INVALID;
        a.disp[row + x] = (int16_t) value;
        if (a.margin)
          a.margin[row + x] = x < dmin ? 0 :
              sd_confidence_sgm_margin (best_sum, m2, m2 != SD_FULL_MASK);
      }
#pragma unroll
      for (int p = 0; p < NP; p++)
        tile[i * PITCH + p * LANES + g] = S[p];
    }
  }
  if (!a.lr)
    return;
  __syncthreads ();

  /* right pixels with candidates x = xr + dmin + k in [x0, x0 + n) */
  const int xr_lo = max (0, x0 - dmin - (D - 1));
  const int xr_hi = x0 + n - 1 - dmin;
  for (int xr = xr_lo + (int) threadIdx.x; xr <= xr_hi;
      xr += 32 * SD_WTA_WARPS) {
    const int k_lo = max (0, x0 - xr - dmin);
    const int k_hi = min (D - 1, x0 + n - 1 - xr - dmin);
    uint32_t best = SD_FULL_MASK;
    /* by runs of k in one slot j: along a run the cell is one pixel and
     * one lane further, PITCH + 1 words, in the same half of the word */
    for (int k0 = k_lo; k0 <= k_hi;) {
      const int j = k0 / LANES;
      const int k_end = min (k_hi, (j + 1) * LANES - 1);
      const int shift = j & 1 ? 16 : 0;
      const uint32_t *cell = tile + (xr + dmin + k0 - x0) * PITCH +
          (j >> 1) * LANES + (k0 & (LANES - 1));
      for (int k = k0; k <= k_end; k++, cell += PITCH + 1)
        best = min (best, (*cell >> shift & 0xffff) << 8 | (uint32_t) k);
      k0 = k_end + 1;
    }
    if (k_lo <= k_hi)
      atomicMin (&a.right_key[row + xr], best);
  }
}

template < int LANES, int DPL > static void
sd_wta_launch (SdSgmVolumes v, const SdWtaArgs & a, cudaStream_t stream)
{
  const int NP = (DPL + 1) / 2;
  const size_t smem = (size_t) SD_WTA_TILE * (NP * LANES + 1) * 4;
  const dim3 grid (sd_cuda_div_up (a.width, SD_WTA_TILE), a.height);
  const dim3 block (32 * SD_WTA_WARPS);
  if (v == SD_SGM_VOLUMES_SUM16)
    sd_cuda_launch_chained (sd_wta_kernel < LANES, DPL, 0, true >, grid,
        block, smem, stream, a);
  else if (v == SD_SGM_VOLUMES_ROWS)
    sd_cuda_launch_chained (sd_wta_kernel < LANES, DPL, 2, true >, grid,
        block, smem, stream, a);
  else if (v == SD_SGM_VOLUMES_PATHS4)
    sd_cuda_launch_chained (sd_wta_kernel < LANES, DPL, 4, false >, grid,
        block, smem, stream, a);
  else
    sd_cuda_launch_chained (sd_wta_kernel < LANES, DPL, 8, false >, grid,
        block, smem, stream, a);
}

cudaError_t
sd_cuda_wta (const SdParams * p, const SdCudaSgmBuffers * b,
    cudaStream_t stream)
{
  SdWtaArgs a;
  int lanes, dpl;
  sd_sgm_layout (p->num_disparities, &lanes, &dpl);
  a.volume = (const uint8_t *) b->volume;
  a.dp = lanes * dpl;
  a.path_stride = (size_t) b->width * b->height * a.dp;
  a.disp = b->disp;
  a.margin = b->margin;
  a.right_key = b->right_key;   /* all ones from the cost volume kernel */
  a.width = b->width;
  a.height = b->height;
  a.D = p->num_disparities;
  a.dmin = p->min_disparity;
  a.uniqueness = p->uniqueness;
  a.subpixel = p->subpixel;
  a.lr = sd_params_lr_check (p) != SD_LR_CHECK_OFF;
  const SdSgmVolumes v = sd_cuda_sgm_volumes (p, b->rows_strip);
  if (dpl == 16)
    sd_wta_launch < 16, 16 > (v, a, stream);
  else if (lanes == 32)
    sd_wta_launch < 32, 8 > (v, a, stream);
  else if (dpl == 8)
    sd_wta_launch < 16, 8 > (v, a, stream);
  else if (dpl == 4)
    sd_wta_launch < 16, 4 > (v, a, stream);
  else if (dpl == 2)
    sd_wta_launch < 16, 2 > (v, a, stream);
  else
    sd_wta_launch < 16, 1 > (v, a, stream);
  return cudaGetLastError ();
}
