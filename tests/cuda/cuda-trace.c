/* A CUDA timeline for machines without Nsight Systems: a CUPTI injection
 * library.  The CUDA driver loads it into any process started with
 *
 *   CUDA_INJECTION64_PATH=/path/libcuda-trace.so SD_TRACE_FILE=trace.txt
 *
 * and it writes one line per kernel, copy, memset, synchronization and
 * driver or runtime call of the whole process (every thread, every
 * context) when the process exits:
 *
 *   kind start_ns end_ns context stream thread name [bytes]
 *
 * (stream and thread are 0 where CUPTI does not know them).  It is how the
 * GPU work of GStreamer's CUDA elements and ours was placed on one time
 * line (docs/performance.md, "Frames in CUDA memory").  Build it with
 * tests/cuda/build-trace.sh; it is not part of the product. */
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>

#define BUFFER_BYTES (8u << 20)

static FILE *trace;

static void CUPTIAPI
buffer_requested (uint8_t ** buffer, size_t *size, size_t *max_records)
{
  /* CUPTI wants 8-byte aligned buffers */
  *buffer = aligned_alloc (8, BUFFER_BYTES);
  *size = *buffer ? BUFFER_BYTES : 0;
  *max_records = 0;
}

static const char *
api_name (CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
  const char *name = "?";
  cuptiGetCallbackName (domain, cbid, &name);
  return name;
}

static void
write_record (const CUpti_Activity * r)
{
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:{
      const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *) r;
      fprintf (trace, "kernel %llu %llu %u %u 0 %s\n",
          (unsigned long long) k->start, (unsigned long long) k->end,
          k->contextId, k->streamId, k->name);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY:{
      const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *) r;
      fprintf (trace, "memcpy %llu %llu %u %u 0 kind%u %llu\n",
          (unsigned long long) m->start, (unsigned long long) m->end,
          m->contextId, m->streamId, m->copyKind,
          (unsigned long long) m->bytes);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET:{
      const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *) r;
      fprintf (trace, "memset %llu %llu %u %u 0 memset %llu\n",
          (unsigned long long) m->start, (unsigned long long) m->end,
          m->contextId, m->streamId, (unsigned long long) m->bytes);
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:{
      const CUpti_ActivitySynchronization2 *s =
          (const CUpti_ActivitySynchronization2 *) r;
      fprintf (trace, "sync %llu %llu %u %u 0 type%u\n",
          (unsigned long long) s->start, (unsigned long long) s->end,
          s->contextId, s->streamId == (uint32_t) - 1 ? 0 : s->streamId,
          (unsigned) s->type);
      break;
    }
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_RUNTIME:{
      const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *) r;
      fprintf (trace, "%s %llu %llu 0 0 %u %s\n",
          r->kind == CUPTI_ACTIVITY_KIND_DRIVER ? "driver" : "runtime",
          (unsigned long long) a->start, (unsigned long long) a->end,
          a->threadId, api_name (r->kind == CUPTI_ACTIVITY_KIND_DRIVER ?
              CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API,
              a->cbid));
      break;
    }
    default:
      break;
  }
}

static void CUPTIAPI
buffer_completed (CUcontext ctx, uint32_t stream, uint8_t * buffer,
    size_t size, size_t valid)
{
  CUpti_Activity *r = NULL;
  (void) ctx;
  (void) stream;
  (void) size;
  while (cuptiActivityGetNextRecord (buffer, valid, &r) == CUPTI_SUCCESS)
    write_record (r);
  free (buffer);
}

static void
flush_at_exit (void)
{
  cuptiActivityFlushAll (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  fclose (trace);
}

/* what the driver calls after loading CUDA_INJECTION64_PATH */
int
InitializeInjection (void)
{
  const char *path = getenv ("SD_TRACE_FILE");
  static const CUpti_ActivityKind kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
    CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_RUNTIME,
  };
  trace = fopen (path ? path : "cuda-trace.txt", "w");
  if (!trace)
    return 0;
  if (cuptiActivityRegisterCallbacks (buffer_requested,
          buffer_completed) != CUPTI_SUCCESS)
    return 0;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    cuptiActivityEnable (kinds[i]);
  atexit (flush_at_exit);
  return 1;
}
