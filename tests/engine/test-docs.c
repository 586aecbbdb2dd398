/* docs/element.md documents every engine parameter with the default that
 * sd_params_init() really sets: a parameter added or a default changed
 * without the reference following fails here.  argv[1] is element.md. */
#include <stdio.h>
#include <string.h>

#include "sd-params.h"
#include "sd-test.h"

static void
format_default (const SdParamDesc * d, const SdParams * p, char *out,
    size_t size)
{
  const char *field = (const char *) p + d->offset;
  switch (d->kind) {
    case SD_PARAM_INT:
      snprintf (out, size, "%d", *(const int *) field);
      break;
    case SD_PARAM_FLOAT:
      snprintf (out, size, "%g", *(const float *) field);
      break;
    case SD_PARAM_BOOL:
      snprintf (out, size, "%s", *(const bool *) field ? "true" : "false");
      break;
    case SD_PARAM_ENUM:
      snprintf (out, size, "`%s`", sd_enum_to_nick (d->entries,
              *(const int *) field));
      break;
  }
}

int
main (int argc, char **argv)
{
  static char doc[1 << 16];
  FILE *f = argc > 1 ? fopen (argv[1], "r") : NULL;
  if (!f) {
    fprintf (stderr, "cannot read %s\n", argc > 1 ? argv[1] : "(none)");
    return 1;
  }
  size_t n = fread (doc, 1, sizeof (doc) - 1, f);
  doc[n] = '\0';
  fclose (f);

  SdParams p;
  sd_params_init (&p);
  for (size_t i = 0; i < sd_param_count; i++) {
    const SdParamDesc *d = &sd_param_descs[i];
    char key[64], expect[64];
    snprintf (key, sizeof (key), "| `%s` |", d->name);
    const char *row = strstr (doc, key);
    SD_CHECK (row != NULL, "%s is not in the property table", d->name);
    if (!row)
      continue;
    /* columns: name | type | range | default | meaning */
    const char *col = row;
    for (int c = 0; c < 3 && col; c++)
      col = strchr (col + 1, '|');
    format_default (d, &p, expect, sizeof (expect));
    char cell[64] = "";
    if (col)
      sscanf (col + 1, " %63[^|]", cell);
    for (size_t len = strlen (cell); len && cell[len - 1] == ' '; len--)
      cell[len - 1] = '\0';
    SD_CHECK (strcmp (cell, expect) == 0, "%s: element.md says default "
        "'%s', sd_params_init() sets %s", d->name, cell, expect);
  }
  return sd_test_exit ("test-docs");
}
