/* sd_cuda_pipeline_time: device, end-to-end and wall times of one pair,
 * and the stages of a whole frame, for sd-bench. */
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sd-cuda-pipeline.h"

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

extern "C" SdStatus
sd_cuda_pipeline_time (SdCudaPipeline * s, const SdParams * p,
    const SdPlane * left, const SdPlane * right, int warmup, int runs,
    SdCudaTimings * t, SdError * err)
{
  SdStatus st;
  const int w = left->width, h = left->height;
  if (runs < 1)
    runs = 1;
  memset (t, 0, sizeof (*t));
  if ((st = sd_cuda_select_device (s, err)) != SD_OK)
    return st;
  double *dev_ms = (double *) calloc (runs, sizeof (double));
  double *e2e_ms = (double *) calloc (runs, sizeof (double));
  double *wall_ms = (double *) calloc (runs, sizeof (double));
  uint16_t *host_out = (uint16_t *) malloc ((size_t) w * h * 2);
  cudaEvent_t *ev = (cudaEvent_t *) calloc (2 * runs, sizeof (cudaEvent_t));
  void *d_in[2] = { NULL, NULL }, *d_out = NULL;
  SdPlane dl = *left, dr = *right;
  SdPlane dout = { NULL, w, h, (size_t) w * 2, SD_PIXEL_GRAY16 };
  SdPlane hout = { host_out, w, h, (size_t) w * 2, SD_PIXEL_GRAY16 };
  cudaError_t e = cudaSuccess;
  int n_events = 0;
  st = SD_OK;
  if (!dev_ms || !e2e_ms || !wall_ms || !host_out || !ev) {
    st = sd_error_set (err, SD_ERROR_OUT_OF_MEMORY, "out of memory");
    goto done;
  }
  /* device copies of the inputs, in their own format */
  for (int i = 0; i < 2; i++) {
    const SdPlane *pl = i ? right : left;
    const size_t bytes = pl->stride * pl->height;
    if ((e = cudaMalloc (&d_in[i], bytes)) != cudaSuccess
        || (e = cudaMemcpy (d_in[i], pl->data, bytes,
                cudaMemcpyHostToDevice)) != cudaSuccess) {
      st = sd_cuda_fail (err, e, "copying the test images to the device");
      goto done;
    }
  }
  dl.data = d_in[0];
  dr.data = d_in[1];
  if ((e = cudaMalloc (&d_out, (size_t) w * h * 2)) != cudaSuccess) {
    st = sd_cuda_fail (err, e, "allocating the device output");
    goto done;
  }
  dout.data = d_out;
  for (; n_events < 2 * runs; n_events++)
    if ((e = cudaEventCreate (&ev[n_events])) != cudaSuccess) {
      st = sd_cuda_fail (err, e, "creating events");
      goto done;
    }
  if ((st = sd_cuda_ensure_buffers (s, p, w, h, err)) != SD_OK)
    goto done;

  /* device memory in and out: the runs go back to back, each between its
   * own pair of events */
  for (int i = 0; i < warmup; i++)
    if ((st = sd_cuda_enqueue_device (s, p, &dl, &dr, &dout, err)) != SD_OK)
      goto done;
  for (int i = 0; i < runs; i++) {
    cudaEventRecord (ev[2 * i], s->stream);
    if ((st = sd_cuda_enqueue_device (s, p, &dl, &dr, &dout, err)) != SD_OK)
      goto done;
    cudaEventRecord (ev[2 * i + 1], s->stream);
  }
  if ((e = cudaStreamSynchronize (s->stream)) != cudaSuccess) {
    st = sd_cuda_fail (err, e, "running the pipeline");
    goto done;
  }
  for (int i = 0; i < runs; i++) {
    float ms = 0;
    cudaEventElapsedTime (&ms, ev[2 * i], ev[2 * i + 1]);
    dev_ms[i] = ms;
  }

  /* stage by stage: events between the stages, one run at a time (the
   * whole frame only: bands take no marks) */
  if (!s->band_rows) {
    cudaEvent_t marks[5];
    int made = 0;
    double *stage = (double *) calloc ((size_t) 4 * runs, sizeof (double));
    for (; made < 5; made++)
      if (cudaEventCreate (&marks[made]) != cudaSuccess)
        break;
    if (made == 5 && stage) {
      s->marks = marks;
      for (int i = 0; i < runs && st == SD_OK; i++) {
        st = sd_cuda_enqueue_device (s, p, &dl, &dr, &dout, err);
        if (st == SD_OK && cudaStreamSynchronize (s->stream) == cudaSuccess)
          for (int k = 0; k < 4; k++) {
            float ms = 0;
            cudaEventElapsedTime (&ms, marks[k], marks[k + 1]);
            stage[k * runs + i] = ms;
          }
      }
      s->marks = NULL;
      for (int k = 0; k < 4 && st == SD_OK; k++) {
        qsort (stage + k * runs, runs, sizeof (double), compare_double);
        t->stage_median[k] = stage[k * runs + runs / 2];
      }
    }
    for (int i = 0; i < made; i++)
      cudaEventDestroy (marks[i]);
    free (stage);
    if (st != SD_OK)
      goto done;
  }

  /* host memory in and out, through the backend's own path */
  for (int i = 0; i < warmup; i++)
    if ((st =
            sd_cuda_process_host (s, p, left, right, &hout, false,
                err)) != SD_OK)
      goto done;
  for (int i = 0; i < runs; i++) {
    const double t0 = now_ms ();
    if ((st =
            sd_cuda_process_host (s, p, left, right, &hout, true,
                err)) != SD_OK)
      goto done;
    wall_ms[i] = now_ms () - t0;
    float ms = 0;
    cudaEventElapsedTime (&ms, s->ev[0], s->ev[1]);
    e2e_ms[i] = ms;
  }
  qsort (dev_ms, runs, sizeof (double), compare_double);
  qsort (e2e_ms, runs, sizeof (double), compare_double);
  qsort (wall_ms, runs, sizeof (double), compare_double);
  t->device_median = dev_ms[runs / 2];
  t->device_min = dev_ms[0];
  t->e2e_median = e2e_ms[runs / 2];
  t->e2e_min = e2e_ms[0];
  t->wall_median = wall_ms[runs / 2];
  t->wall_min = wall_ms[0];
  t->runs = runs;
  t->volume_bytes = sd_cuda_sgm_volume_bytes (p, w,
      sd_cuda_volume_height (p, h, s->band_rows),
      sd_cuda_pipeline_rows_strip (s, p, w));
  t->band_rows = s->band_rows;
  t->device_bytes = s->dev_capacity + (s->rect_maps ? (size_t) w * h * 16 : 0);
  t->eight_bit = sd_cuda_sgm_uses_8bit (p);

done:
  sd_cuda_synchronize (s);
  for (int i = 0; i < n_events; i++)
    cudaEventDestroy (ev[i]);
  cudaFree (d_in[0]);
  cudaFree (d_in[1]);
  cudaFree (d_out);
  free (dev_ms);
  free (e2e_ms);
  free (wall_ms);
  free (host_out);
  free (ev);
  return st;
}

/* ---- the SdBackend ------------------------------------------------------ */
