#!/bin/bash
# Example 1: the disparity of two image files (a rectified pair), written as
#   OUTDIR/disparity.png        16-bit gray PNG, value = 16 * disparity in
#                               pixels, 0 = invalid (the output contract)
#   OUTDIR/disparity-color.png  colour preview (turbo, black = invalid)
# usage: stereo-images.sh LEFT RIGHT OUTDIR [stereodepth property=value ...]
# e.g.:  stereo-images.sh left.png right.png out num-disparities=64
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
source "$(dirname "$0")/common.sh"
left=$1 right=$2 out=$3
shift 3
mkdir -p "$out"
image_source left_src "$left" "$out" 1
image_source right_src "$right" "$out" 1

gst-launch-1.0 -q \
  stereodepth name=sd "$@" ! tee name=t \
  t. ! queue ! videoconvert ! video/x-raw,format=GRAY16_BE ! pngenc ! \
    filesink location="$out/disparity.png" \
  t. ! queue ! depthcolormap ! videoconvert ! pngenc ! \
    filesink location="$out/disparity-color.png" \
  "${left_src[@]}" ! sd.sink_left \
  "${right_src[@]}" ! sd.sink_right
echo "disparity: $out/disparity.png (16-bit: value = 16 * disparity in pixels, 0 = invalid)"
echo "picture:   $out/disparity-color.png (turbo colours, black = invalid)"
