/* libFuzzer target: parameters from strings, as gst-launch-1.0 and sd-bench
 * options give them ("name=value"), then the range check. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sd-params.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  char *text = malloc (size + 1);
  if (!text)
    return 0;
  memcpy (text, data, size);
  text[size] = '\0';
  SdParams p;
  sd_params_init (&p);
  char msg[256];
  /* lines of name=value, applied in order */
  char *save = NULL;
  for (char *line = strtok_r (text, "\n", &save); line;
      line = strtok_r (NULL, "\n", &save)) {
    char *eq = strchr (line, '=');
    if (!eq)
      continue;
    *eq = '\0';
    sd_params_set_from_string (&p, line, eq + 1, msg, sizeof (msg));
  }
  sd_params_validate (&p, msg, sizeof (msg));
  free (text);
  return 0;
}
