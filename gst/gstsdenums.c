/* Registers a static GEnum from an SdEnumEntry table, once per type name.
 * The GEnumValue array must outlive the type, so it is never freed. */
#include "gstsdenums.h"

GType
gst_sd_enum_type (const gchar * type_name, const SdEnumEntry * entries)
{
  static GMutex lock;
  GType type;

  g_mutex_lock (&lock);
  type = g_type_from_name (type_name);
  if (type == 0) {
    gsize n = 0, i;
    GEnumValue *values;

    while (entries[n].nick)
      n++;
    values = g_new0 (GEnumValue, n + 1);
    for (i = 0; i < n; i++) {
      values[i].value = entries[i].value;
      values[i].value_name = entries[i].description;
      values[i].value_nick = entries[i].nick;
    }
    type = g_enum_register_static (type_name, values);
    gst_type_mark_as_plugin_api (type, 0);
  }
  g_mutex_unlock (&lock);

  return type;
}
