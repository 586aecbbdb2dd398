#!/bin/bash
# Example 3: records depth video losslessly, bit for bit:
#   OUTDIR/depth-00000.png ...  one 16-bit gray PNG per frame (value =
#                               16 * disparity in pixels, 0 = invalid; with
#                               output=depth, millimetres)
#   OUTDIR/depth.mkv            the same as FFV1 in Matroska, where
#                               gstreamer1.0-libav provides avenc_ffv1
# usage: record-depth.sh (--cameras LEFT_DEVICE RIGHT_DEVICE | --images LEFT RIGHT)
#                        [--frames N] OUTDIR [property=value ...]
# --images repeats a still pair N times (default 10); --cameras records
# until N frames (default: until Ctrl-C).  Depth in millimetres:
#   record-depth.sh --cameras /dev/video0 /dev/video2 out calibration=rig.yaml output=depth
# See docs/recording.md.
set -euo pipefail
usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 4 ] || usage
source "$(dirname "$0")/common.sh"
kind=$1 left=$2 right=$3
shift 3
frames=
if [ "${1:-}" = --frames ]; then
  frames=$2
  shift 2
fi
[ $# -ge 1 ] || usage
out=$1
shift
mkdir -p "$out"

case "$kind" in
  --images)
    image_source left_src "$left" "$out" "${frames:-10}"
    image_source right_src "$right" "$out" "${frames:-10}" ;;
  --cameras)
    for side in left right; do
      declare -n src=${side}_src
      src=(v4l2src device="${!side}" num-buffers="${frames:--1}" !
        videoconvert ! video/x-raw,format=GRAY8 ! queue)
    done ;;
  *) usage ;;
esac

# PNG keeps 16 bits only big-endian: videoconvert swaps the bytes, nothing
# else.  FFV1 takes GRAY16_LE as it is.
branches=(t. ! queue ! videoconvert ! video/x-raw,format=GRAY16_BE ! pngenc !
  multifilesink location="$out/depth-%05d.png")
if gst-inspect-1.0 avenc_ffv1 >/dev/null 2>&1; then
  branches+=(t. ! queue ! avenc_ffv1 ! matroskamux !
    filesink location="$out/depth.mkv")
fi

gst-launch-1.0 -q -e stereodepth name=sd "$@" ! tee name=t "${branches[@]}" \
  "${left_src[@]}" ! sd.sink_left "${right_src[@]}" ! sd.sink_right
meaning="value = 16 * disparity in pixels, 0 = invalid"
for arg in "$@"; do
  [ "$arg" = output=depth ] && meaning="depth in millimetres, 0 = invalid"
done
echo "recorded: $out/depth-%05d.png (16-bit: $meaning)"
[ ! -e "$out/depth.mkv" ] || echo "recorded: $out/depth.mkv (FFV1, GRAY16_LE)"
