#include "sd-message.h"

#include <stdarg.h>
#include <stdio.h>

bool
sd_message (char *msg, size_t size, const char *fmt, ...)
{
  if (msg && size) {
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (msg, size, fmt, ap);
    va_end (ap);
  }
  return false;
}
