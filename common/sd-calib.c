/* Stereo calibration files (sd-calib.h).  OpenCV's two FileStorage formats
 * and ROS's camera_info come down to one shape: top-level keys whose value
 * is a scalar, a list, or a matrix of rows, cols and data.  Each parser
 * (libyaml's document loader, GLib's GMarkup) only flattens its file into
 * that table, numbers still as text, so the checks and their messages
 * (which file, which key, which size) are written once, below the parsers.
 * Only this file uses GLib: the header stays plain C for the CUDA code. */
#include "sd-calib.h"
#include "sd-message.h"

#include <errno.h>
#include <glib.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

/* A calibration is a few kilobytes; the limit keeps a wrong path (a video,
 * a disk image) from being read whole. */
#define CALIB_MAX_FILE_BYTES (1 << 20)
/* rows and cols beyond any matrix of a calibration, so rows * cols cannot
 * overflow on hostile input */
#define CALIB_MAX_DIM 1000
#define CALIB_MAX_SIDE (1 << 20)

typedef struct
{
  char *key;
  /* a YAML mapping or an XML element with children: rows, cols and data */
  bool is_matrix;
  char *rows, *cols;            /* NULL where the matrix has none */
  bool has_data;
  /* a list (or data) held lists or mappings, which no key here wants */
  bool nested;
  char *text;                   /* a scalar's text, NULL otherwise */
  /* the numbers as text: a scalar's one, a list's, a matrix's data */
  GPtrArray *items;
} CalibEntry;

typedef struct
{
  const char *path;
  GPtrArray *entries;           /* CalibEntry, in file order */
} CalibFile;

static void
entry_free (gpointer data)
{
  CalibEntry *e = data;
  g_free (e->key);
  g_free (e->rows);
  g_free (e->cols);
  g_free (e->text);
  g_ptr_array_unref (e->items);
  g_free (e);
}

static CalibEntry *
entry_add (CalibFile * f, const char *key)
{
  CalibEntry *e = g_new0 (CalibEntry, 1);
  e->key = g_strdup (key);
  e->items = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (f->entries, e);
  return e;
}

/* The first entry of that name; OpenCV never writes a key twice. */
static const CalibEntry *
entry_find (const CalibFile * f, const char *key)
{
  for (guint i = 0; i < f->entries->len; i++) {
    const CalibEntry *e = g_ptr_array_index (f->entries, i);
    if (strcmp (e->key, key) == 0)
      return e;
  }
  return NULL;
}

/* A token from the file as a message may quote it: short and printable,
 * since hostile text should not break the one-line message. */
static const char *
token_show (const char *tok, char *buf, size_t size)
{
  const size_t keep = size - 4;
  size_t n = 0;
  for (; tok[n] && n < keep; n++)
    buf[n] = g_ascii_isprint (tok[n]) ? tok[n] : '?';
  if (tok[n]) {
    memcpy (buf + n, "...", 3);
    n += 3;
  }
  buf[n] = '\0';
  return buf;
}

/* A whole token as a finite number.  g_ascii_strtod, because strtod
 * follows LC_NUMERIC and a comma-decimal locale would stop at the '.'. */
static bool
number_parse (const char *tok, double *out)
{
  if (!tok[0])
    return false;
  char *end;
  const double v = g_ascii_strtod (tok, &end);
  if (end == tok || *end != '\0' || !isfinite (v))
    return false;
  *out = v;
  return true;
}

/* OpenCV writes ints of a double matrix as "640.", so a whole number is
 * any number without a fraction. */
static bool
whole_check (double v, int lo, int hi)
{
  return v == floor (v) && v >= lo && v <= hi;
}

static bool
whole_parse (const char *tok, int lo, int hi, int *out)
{
  double v;
  if (!number_parse (tok, &v) || !whole_check (v, lo, hi))
    return false;
  *out = (int) v;
  return true;
}

/* Text and the file it came from, NUL-terminated; refuses files too large
 * to be a calibration. */
static char *
file_slurp (const char *path, size_t *len, char *msg, size_t size)
{
  FILE *in = fopen (path, "rb");
  if (!in) {
    sd_message (msg, size, "cannot open %s: %s", path, strerror (errno));
    return NULL;
  }
  GString *s = g_string_new (NULL);
  char chunk[16384];
  size_t n;
  while ((n = fread (chunk, 1, sizeof (chunk), in)) > 0) {
    if (s->len + n > CALIB_MAX_FILE_BYTES) {
      fclose (in);
      g_string_free (s, TRUE);
      sd_message (msg, size, "%s: larger than %d MiB, too large for a "
          "calibration file", path, CALIB_MAX_FILE_BYTES >> 20);
      return NULL;
    }
    g_string_append_len (s, chunk, n);
  }
  /* a directory opens but does not read */
  const int err = ferror (in) ? errno : 0;
  fclose (in);
  if (err) {
    g_string_free (s, TRUE);
    sd_message (msg, size, "cannot read %s: %s", path, strerror (err));
    return NULL;
  }
  *len = s->len;
  return g_string_free (s, FALSE);
}

/* YAML ------------------------------------------------------------------ */

/* Adds a value's scalars to e->items: itself, or a list's items. */
static void
yaml_items_add (CalibEntry * e, yaml_document_t * doc, yaml_node_t * node)
{
  if (node->type == YAML_SCALAR_NODE) {
    const char *v = (const char *) node->data.scalar.value;
    /* an escaped NUL ("1\0x") would pass the whole-token check unseen */
    const bool clean = strlen (v) == node->data.scalar.length;
    g_ptr_array_add (e->items, g_strdup (clean ? v : ""));
    return;
  }
  if (node->type != YAML_SEQUENCE_NODE) {
    e->nested = true;
    return;
  }
  for (yaml_node_item_t * i = node->data.sequence.items.start;
      i < node->data.sequence.items.top; i++) {
    yaml_node_t *item = yaml_document_get_node (doc, *i);
    if (item && item->type == YAML_SCALAR_NODE)
      yaml_items_add (e, doc, item);
    else
      e->nested = true;
  }
}

/* The rows, cols and data of a mapping value (opencv-matrix, ROS). */
static void
yaml_matrix_add (CalibEntry * e, yaml_document_t * doc, yaml_node_t * node)
{
  e->is_matrix = true;
  for (yaml_node_pair_t * p = node->data.mapping.pairs.start;
      p < node->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node (doc, p->key);
    yaml_node_t *v = yaml_document_get_node (doc, p->value);
    if (!k || !v || k->type != YAML_SCALAR_NODE)
      continue;
    const char *name = (const char *) k->data.scalar.value;
    char **field = strcmp (name, "rows") == 0 ? &e->rows :
        strcmp (name, "cols") == 0 ? &e->cols : NULL;
    if (field && v->type == YAML_SCALAR_NODE) {
      g_free (*field);
      *field = g_strdup ((const char *) v->data.scalar.value);
    } else if (strcmp (name, "data") == 0) {
      e->has_data = true;
      e->nested = false;
      g_ptr_array_set_size (e->items, 0);
      yaml_items_add (e, doc, v);
    }
  }
}

static bool
yaml_error_say (const yaml_parser_t * p, const char *path,
    const char *text, size_t len, int skipped, char *msg, size_t size)
{
  const char *problem = p->problem ? p->problem : "malformed YAML";
  size_t line;
  if (p->error == YAML_MEMORY_ERROR)
    return sd_message (msg, size, "%s: out of memory parsing YAML", path);
  if (p->error == YAML_READER_ERROR) {
    /* the reader knows only the byte offset */
    line = 1;
    for (size_t i = 0; i < p->problem_offset && i < len; i++)
      line += text[i] == '\n';
  } else {
    line = p->problem_mark.line + 1;
  }
  if (p->context)
    return sd_message (msg, size, "%s: YAML error on line %zu: %s (%s)", path,
        line + skipped, problem, p->context);
  return sd_message (msg, size, "%s: YAML error on line %zu: %s", path,
      line + skipped, problem);
}

static bool
yaml_file_parse (CalibFile * f, const char *text, size_t len, char *msg,
    size_t size)
{
  /* OpenCV writes "%YAML:1.0", which libyaml refuses as a directive, and
   * libyaml refuses version 1.0 in the proper spelling too; the line tells
   * the reader nothing, so it goes (and line numbers count it back). */
  int skipped = 0;
  if (len >= 5 && memcmp (text, "%YAML", 5) == 0) {
    const char *nl = memchr (text, '\n', len);
    const size_t cut = nl ? (size_t) (nl - text) + 1 : len;
    text += cut;
    len -= cut;
    skipped = 1;
  }
  yaml_parser_t parser;
  if (!yaml_parser_initialize (&parser))
    return sd_message (msg, size, "%s: out of memory parsing YAML", f->path);
  yaml_parser_set_input_string (&parser, (const unsigned char *) text, len);
  yaml_document_t doc;
  if (!yaml_parser_load (&parser, &doc)) {
    /* the loader has freed the document */
    yaml_error_say (&parser, f->path, text, len, skipped, msg, size);
    yaml_parser_delete (&parser);
    return false;
  }
  yaml_node_t *root = yaml_document_get_root_node (&doc);
  bool ok = true;
  if (!root)
    ok = sd_message (msg, size, "%s: the file holds no YAML document",
        f->path);
  else if (root->type != YAML_MAPPING_NODE)
    ok = sd_message (msg, size,
        "%s: the YAML document is not a mapping of keys", f->path);
  else {
    for (yaml_node_pair_t * p = root->data.mapping.pairs.start;
        p < root->data.mapping.pairs.top; p++) {
      yaml_node_t *k = yaml_document_get_node (&doc, p->key);
      yaml_node_t *v = yaml_document_get_node (&doc, p->value);
      if (!k || !v || k->type != YAML_SCALAR_NODE)
        continue;
      CalibEntry *e = entry_add (f, (const char *) k->data.scalar.value);
      if (v->type == YAML_MAPPING_NODE) {
        yaml_matrix_add (e, &doc, v);
      } else {
        if (v->type == YAML_SCALAR_NODE)
          e->text = g_strdup ((const char *) v->data.scalar.value);
        yaml_items_add (e, &doc, v);
      }
    }
  }
  yaml_document_delete (&doc);
  yaml_parser_delete (&parser);
  return ok;
}

/* XML ------------------------------------------------------------------- */

typedef enum
{
  XML_FIELD_OTHER,
  XML_FIELD_ROWS,
  XML_FIELD_COLS,
  XML_FIELD_DATA,
} XmlField;

typedef struct
{
  CalibFile *file;
  /* elements open: 1 = opencv_storage, 2 = a key, 3 = a key's child */
  int depth;
  CalibEntry *entry;            /* the key open, NULL outside one */
  XmlField field;               /* the key's child open */
  GString *entry_text, *field_text;
} XmlState;

static void
items_add_words (CalibEntry * e, const char *text)
{
  const char *p = text;
  while (*p) {
    while (*p && g_ascii_isspace (*p))
      p++;
    const char *start = p;
    while (*p && !g_ascii_isspace (*p))
      p++;
    if (p > start)
      g_ptr_array_add (e->items, g_strndup (start, p - start));
  }
}

static void
xml_start (GMarkupParseContext * ctx, const gchar * name,
    const gchar ** attr_names, const gchar ** attr_values, gpointer user,
    GError ** error)
{
  XmlState *s = user;
  (void) ctx;
  (void) attr_names;
  (void) attr_values;
  if (s->depth == 0 && strcmp (name, "opencv_storage") != 0) {
    char shown[32];
    g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT,
        "the root element is <%s>, not OpenCV's <opencv_storage>",
        token_show (name, shown, sizeof (shown)));
    return;
  }
  if (s->depth == 1) {
    s->entry = entry_add (s->file, name);
    g_string_truncate (s->entry_text, 0);
  } else if (s->depth == 2 && s->entry) {
    s->entry->is_matrix = true;
    s->field = strcmp (name, "rows") == 0 ? XML_FIELD_ROWS :
        strcmp (name, "cols") == 0 ? XML_FIELD_COLS :
        strcmp (name, "data") == 0 ? XML_FIELD_DATA : XML_FIELD_OTHER;
    g_string_truncate (s->field_text, 0);
  }
  s->depth++;
}

static void
xml_end (GMarkupParseContext * ctx, const gchar * name, gpointer user,
    GError ** error)
{
  XmlState *s = user;
  CalibEntry *e = s->entry;
  (void) ctx;
  (void) name;
  (void) error;
  s->depth--;
  if (s->depth == 2 && e) {
    if (s->field == XML_FIELD_ROWS || s->field == XML_FIELD_COLS) {
      char **field = s->field == XML_FIELD_ROWS ? &e->rows : &e->cols;
      g_free (*field);
      *field = g_strstrip (g_strdup (s->field_text->str));
    } else if (s->field == XML_FIELD_DATA) {
      e->has_data = true;
      g_ptr_array_set_size (e->items, 0);
      items_add_words (e, s->field_text->str);
    }
  } else if (s->depth == 1 && e) {
    if (!e->is_matrix) {
      e->text = g_strstrip (g_strdup (s->entry_text->str));
      items_add_words (e, e->text);
    }
    s->entry = NULL;
  }
}

static void
xml_text (GMarkupParseContext * ctx, const gchar * text, gsize len,
    gpointer user, GError ** error)
{
  XmlState *s = user;
  (void) ctx;
  (void) error;
  if (s->depth == 2)
    g_string_append_len (s->entry_text, text, len);
  else if (s->depth == 3)
    g_string_append_len (s->field_text, text, len);
}

static bool
xml_file_parse (CalibFile * f, const char *text, size_t len, char *msg,
    size_t size)
{
  static const GMarkupParser parser = {
    xml_start, xml_end, xml_text, NULL, NULL
  };
  XmlState s = { 0 };
  s.file = f;
  s.entry_text = g_string_new (NULL);
  s.field_text = g_string_new (NULL);
  /* the flag gives the callbacks' errors GMarkup's "Error on line N char
   * M: " too */
  GMarkupParseContext *ctx = g_markup_parse_context_new (&parser,
      G_MARKUP_PREFIX_ERROR_POSITION, &s, NULL);
  GError *err = NULL;
  bool ok = g_markup_parse_context_parse (ctx, text, (gssize) len, &err)
      && g_markup_parse_context_end_parse (ctx, &err);
  if (!ok) {
    const char *m = err ? err->message : "malformed XML";
    if (g_str_has_prefix (m, "Error on line "))
      sd_message (msg, size, "%s: XML error %s", f->path,
          m + strlen ("Error "));
    else
      sd_message (msg, size, "%s: XML error: %s", f->path, m);
  }
  g_clear_error (&err);
  g_markup_parse_context_free (ctx);
  g_string_free (s.entry_text, TRUE);
  g_string_free (s.field_text, TRUE);
  return ok;
}

static bool
file_parse (CalibFile * f, const char *path, char *msg, size_t size)
{
  f->path = path;
  f->entries = g_ptr_array_new_with_free_func (entry_free);
  size_t len;
  char *text = file_slurp (path, &len, msg, size);
  if (!text)
    return false;
  const char *p = text;
  if (len >= 3 && memcmp (p, "\xef\xbb\xbf", 3) == 0) {
    p += 3;
    len -= 3;
  }
  size_t i = 0;
  while (i < len && g_ascii_isspace (p[i]))
    i++;
  bool ok;
  if (i == len)
    ok = sd_message (msg, size, "%s: the file is empty", path);
  else if (p[i] == '<')
    ok = xml_file_parse (f, p, len, msg, size);
  else
    ok = yaml_file_parse (f, p, len, msg, size);
  g_free (text);
  return ok;
}

static void
file_clear (CalibFile * f)
{
  if (f->entries)
    g_ptr_array_unref (f->entries);
  f->entries = NULL;
}

/* The table to numbers -------------------------------------------------- */

typedef enum
{
  SHAPE_3X3,
  SHAPE_3X4,
  SHAPE_4X4,
  SHAPE_VEC3,
  SHAPE_DIST,
  SHAPE_PAIR,
} Shape;

static const char *const shape_names[] = {
  "3x3", "3x4", "4x4", "3x1 or 1x3",
  "1x4, 1x5 or 1x8 (or a column)", "1x2 or 2x1",
};

/* The biggest shape's entries: a 4x4 Q. */
#define SHAPE_MAX_VALUES 16

static bool
shape_fits (Shape shape, int r, int c)
{
  const int n = r * c;
  switch (shape) {
    case SHAPE_3X3:
      return r == 3 && c == 3;
    case SHAPE_3X4:
      return r == 3 && c == 4;
    case SHAPE_4X4:
      return r == 4 && c == 4;
    case SHAPE_VEC3:
      return (r == 1 || c == 1) && n == 3;
    case SHAPE_DIST:
      /* 12 and 14 terms (thin prism, tilt) are models the rectification
       * does not have */
      return (r == 1 || c == 1) && (n == 4 || n == 5 || n == 8);
    case SHAPE_PAIR:
      return (r == 1 || c == 1) && n == 2;
  }
  return false;
}

/* Matrix e, of that shape, into out (SHAPE_MAX_VALUES); *n how many. */
static bool
matrix_read (const CalibFile * f, const CalibEntry * e, Shape shape,
    double *out, int *n, char *msg, size_t size)
{
  char shown[32];
  int rows, cols;
  if (!e->is_matrix || !e->rows || !e->cols || !e->has_data)
    return sd_message (msg, size,
        "%s: %s is not a matrix of rows, cols and data", f->path, e->key);
  if (!whole_parse (e->rows, 1, CALIB_MAX_DIM, &rows))
    return sd_message (msg, size,
        "%s: %s has rows '%s', expected a whole number from 1 to %d",
        f->path, e->key, token_show (e->rows, shown, sizeof (shown)),
        CALIB_MAX_DIM);
  if (!whole_parse (e->cols, 1, CALIB_MAX_DIM, &cols))
    return sd_message (msg, size,
        "%s: %s has cols '%s', expected a whole number from 1 to %d",
        f->path, e->key, token_show (e->cols, shown, sizeof (shown)),
        CALIB_MAX_DIM);
  if (!shape_fits (shape, rows, cols))
    return sd_message (msg, size, "%s: %s is %dx%d, expected %s", f->path,
        e->key, rows, cols, shape_names[shape]);
  if (e->nested)
    return sd_message (msg, size, "%s: %s has a list or mapping in its data, "
        "expected numbers", f->path, e->key);
  if (e->items->len != (guint) (rows * cols))
    return sd_message (msg, size,
        "%s: %s has %u numbers in its data, but %dx%d needs %d", f->path,
        e->key, e->items->len, rows, cols, rows * cols);
  for (int i = 0; i < rows * cols; i++) {
    const char *tok = g_ptr_array_index (e->items, i);
    if (!number_parse (tok, &out[i]))
      return sd_message (msg, size,
          "%s: %s has '%s' in its data, which is not a number", f->path,
          e->key, token_show (tok, shown, sizeof (shown)));
  }
  *n = rows * cols;
  return true;
}

/* A key holding one whole number (image_width). */
static bool
whole_read (const CalibFile * f, const CalibEntry * e, int *out, char *msg,
    size_t size)
{
  char shown[32];
  if (e->is_matrix || e->nested || e->items->len != 1)
    return sd_message (msg, size, "%s: %s is not a single number", f->path,
        e->key);
  const char *tok = g_ptr_array_index (e->items, 0);
  if (!whole_parse (tok, 0, CALIB_MAX_SIDE, out))
    return sd_message (msg, size,
        "%s: %s is '%s', expected a whole number from 0 to %d", f->path,
        e->key, token_show (tok, shown, sizeof (shown)), CALIB_MAX_SIDE);
  return true;
}

/* OpenCV's optional image size: image_width and image_height, or imageSize
 * (image_size) as [w, h] or a two-entry matrix; left 0 without them. */
static bool
opencv_size_read (const CalibFile * f, SdStereoCalib * c, char *msg,
    size_t size)
{
  const CalibEntry *w = entry_find (f, "image_width");
  const CalibEntry *h = entry_find (f, "image_height");
  if (w || h) {
    if (!w || !h)
      return sd_message (msg, size, "%s: no key %s, though %s is given",
          f->path, w ? "image_height" : "image_width",
          w ? "image_width" : "image_height");
    return whole_read (f, w, &c->width, msg, size)
        && whole_read (f, h, &c->height, msg, size);
  }
  const CalibEntry *s = entry_find (f, "imageSize");
  if (!s)
    s = entry_find (f, "image_size");
  if (!s)
    return true;
  double v[SHAPE_MAX_VALUES];
  int n;
  if (s->is_matrix) {
    if (!matrix_read (f, s, SHAPE_PAIR, v, &n, msg, size))
      return false;
  } else {
    if (s->nested || s->items->len != 2)
      return sd_message (msg, size, "%s: %s is not a pair of numbers (width, "
          "height)", f->path, s->key);
    for (int i = 0; i < 2; i++)
      if (!number_parse (g_ptr_array_index (s->items, i), &v[i]))
        return sd_message (msg, size,
            "%s: %s holds something other than numbers", f->path, s->key);
  }
  if (!whole_check (v[0], 0, CALIB_MAX_SIDE)
      || !whole_check (v[1], 0, CALIB_MAX_SIDE))
    return sd_message (msg, size,
        "%s: %s is %gx%g, expected whole numbers from 0 to %d", f->path,
        s->key, v[0], v[1], CALIB_MAX_SIDE);
  c->width = (int) v[0];
  c->height = (int) v[1];
  return true;
}

/* A camera's four matrices under the file's names for them. */
static bool
camera_read (const CalibFile * f, const char *const keys[4],
    SdCameraCalib * cam, char *msg, size_t size)
{
  double v[SHAPE_MAX_VALUES];
  int n;
  if (!matrix_read (f, entry_find (f, keys[0]), SHAPE_3X3, v, &n, msg, size))
    return false;
  memcpy (cam->K, v, sizeof (cam->K));
  if (!matrix_read (f, entry_find (f, keys[1]), SHAPE_DIST, v, &n, msg, size))
    return false;
  memcpy (cam->D, v, n * sizeof (double));
  cam->n_dist = n;
  if (!matrix_read (f, entry_find (f, keys[2]), SHAPE_3X3, v, &n, msg, size))
    return false;
  memcpy (cam->R, v, sizeof (cam->R));
  if (!matrix_read (f, entry_find (f, keys[3]), SHAPE_3X4, v, &n, msg, size))
    return false;
  memcpy (cam->P, v, sizeof (cam->P));
  return true;
}

static bool
opencv_read (const CalibFile * f, SdStereoCalib * c, char *msg, size_t size)
{
  static const char *const keys[2][4] = {
    {"M1", "D1", "R1", "P1"},
    {"M2", "D2", "R2", "P2"},
  };
  static const char *const required[] = {
    "M1", "D1", "M2", "D2", "R1", "R2", "P1", "P2"
  };
  /* every missing key before any malformed one: a file of another kind
   * should be told as such, not by its first odd value */
  for (size_t i = 0; i < G_N_ELEMENTS (required); i++) {
    if (entry_find (f, required[i]))
      continue;
    /* a ROS camera_info given alone looks like a broken OpenCV file */
    const char *hint = entry_find (f, "camera_matrix") ? "; this looks like "
        "a ROS camera_info file, which needs the right camera's file too" : "";
    return sd_message (msg, size,
        "%s: no key %s (OpenCV stereo calibration needs "
        "M1 D1 M2 D2 R1 R2 P1 P2%s)", f->path, required[i], hint);
  }
  for (int j = 0; j < 2; j++)
    if (!camera_read (f, keys[j], &c->cam[j], msg, size))
      return false;
  double v[SHAPE_MAX_VALUES];
  int n;
  const CalibEntry *e = entry_find (f, "Q");
  if (e) {
    if (!matrix_read (f, e, SHAPE_4X4, v, &n, msg, size))
      return false;
    memcpy (c->Q, v, sizeof (c->Q));
    c->has_q = true;
  }
  e = entry_find (f, "T");
  if (e) {
    if (!matrix_read (f, e, SHAPE_VEC3, v, &n, msg, size))
      return false;
    memcpy (c->T, v, sizeof (c->T));
    c->has_t = true;
  }
  c->to_mm = 1;
  return opencv_size_read (f, c, msg, size);
}

static bool
ros_read (const CalibFile * f, SdCameraCalib * cam, int *width, int *height,
    char *msg, size_t size)
{
  static const char *const keys[4] = {
    "camera_matrix", "distortion_coefficients", "rectification_matrix",
    "projection_matrix"
  };
  static const char *const required[] = {
    "image_width", "image_height", "camera_matrix", "distortion_coefficients",
    "rectification_matrix", "projection_matrix"
  };
  for (size_t i = 0; i < G_N_ELEMENTS (required); i++)
    if (!entry_find (f, required[i]))
      return sd_message (msg, size,
          "%s: no key %s (a ROS camera_info file needs "
          "image_width image_height camera_matrix distortion_coefficients "
          "rectification_matrix projection_matrix)", f->path, required[i]);
  /* equidistant (fisheye) also has 4 terms, which would pass for k1 k2 p1
   * p2 and rectify wrongly */
  const CalibEntry *model = entry_find (f, "distortion_model");
  if (model && (!model->text || (strcmp (model->text, "plumb_bob") != 0
              && strcmp (model->text, "rational_polynomial") != 0))) {
    char shown[32];
    return sd_message (msg, size, "%s: distortion_model '%s' is not one this "
        "reader knows (plumb_bob, rational_polynomial)", f->path,
        token_show (model->text ? model->text : "", shown, sizeof (shown)));
  }
  return whole_read (f, entry_find (f, "image_width"), width, msg, size)
      && whole_read (f, entry_find (f, "image_height"), height, msg, size)
      && camera_read (f, keys, cam, msg, size);
}

static bool
ros_pair_read (CalibFile * left, CalibFile * right, const char *right_path,
    SdStereoCalib * c, char *msg, size_t size)
{
  int w, h;
  if (!ros_read (left, &c->cam[0], &c->width, &c->height, msg, size)
      || !file_parse (right, right_path, msg, size)
      || !ros_read (right, &c->cam[1], &w, &h, msg, size))
    return false;
  if (w != c->width || h != c->height)
    return sd_message (msg, size,
        "%s: image_width x image_height is %dx%d, but %s says %dx%d",
        right->path, w, h, left->path, c->width, c->height);
  c->to_mm = 1000;
  return true;
}

bool
sd_stereo_calib_load (const char *path, const char *right_path,
    SdStereoCalib * calib, char *msg, size_t msg_size)
{
  if (msg && msg_size)
    msg[0] = '\0';
  if (!calib || !path)
    return sd_message (msg, msg_size, "no calibration file given");
  memset (calib, 0, sizeof (*calib));
  CalibFile left = { 0 }, right = { 0 };
  bool ok = file_parse (&left, path, msg, msg_size);
  if (ok && !right_path)
    ok = opencv_read (&left, calib, msg, msg_size);
  else if (ok)
    ok = ros_pair_read (&left, &right, right_path, calib, msg, msg_size);
  file_clear (&left);
  file_clear (&right);
  if (!ok)
    memset (calib, 0, sizeof (*calib));
  return ok;
}

double
sd_stereo_calib_focal_baseline (const SdStereoCalib * calib)
{
  /* the sign depends on which camera the tool called right */
  const double tx = calib->cam[1].P[3];
  return tx != 0 ? fabs (tx) * calib->to_mm : 0;
}
