# Sourced by the example scripts: finds the plugin and turns image files
# into launch-line sources.

# The plugin is not installed: use the build tree's unless the caller
# points GST_PLUGIN_PATH elsewhere.
examples_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$examples_dir/../build/gst}
if ! gst-inspect-1.0 stereodepth >/dev/null 2>&1; then
  echo "stereodepth is not found in GST_PLUGIN_PATH=$GST_PLUGIN_PATH;" \
    "build the project first (bash tests/build.sh)" >&2
  exit 1
fi

# image_source VAR FILE WORKDIR FRAMES: sets the array VAR to launch-line
# words that decode FILE and repeat it as FRAMES video frames.  PGM/PPM
# files are converted to PNG in WORKDIR first (GStreamer's PNM decoder is in
# gst-plugins-bad); everything else goes through decodebin.  videoconvert
# only acts when the decoder's format is one stereodepth does not take (such
# as 16-bit big-endian gray), so RGB stays RGB and gets the engine's luma.
image_source() {
  local -n words=$1
  local file=$2 workdir=$3 frames=$4
  case "$file" in
    *.pgm | *.ppm | *.pnm)
      local png
      png="$workdir/$(basename "${file%.*}").png"
      python3 "$examples_dir/pnm_to_png.py" "$file" "$png" || exit 1
      file=$png ;;
  esac
  [ -r "$file" ] || { echo "cannot read $file" >&2; exit 1; }
  words=(filesrc location="$file" ! decodebin ! videoconvert !
    imagefreeze num-buffers="$frames")
}
