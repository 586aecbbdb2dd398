/* GEnum types for the SdEnumEntry tables of common/, so that element
 * properties show the engine's own names and descriptions. */
#ifndef __GST_SD_ENUMS_H__
#define __GST_SD_ENUMS_H__

#include <gst/gst.h>

#include "sd-params.h"

G_BEGIN_DECLS

GType gst_sd_enum_type (const gchar * type_name, const SdEnumEntry * entries);

G_END_DECLS

#endif
