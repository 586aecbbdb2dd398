/* stereodepth plugin: registers its elements. */
#include <gst/gst.h>

#include "gstdepthcolormap.h"
#include "gstdepthtemporal.h"
#include "gststereodepth.h"
#include "gststereorectify.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (stereodepth, plugin);
  ret |= GST_ELEMENT_REGISTER (depthcolormap, plugin);
  ret |= GST_ELEMENT_REGISTER (depthtemporal, plugin);
  ret |= GST_ELEMENT_REGISTER (stereorectify, plugin);

  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, stereodepth,
    "Stereo disparity from a left and a right video stream",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
