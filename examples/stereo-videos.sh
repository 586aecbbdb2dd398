#!/bin/bash
# Example: two recorded video files (one a camera) played to a colour
# window, or one file that holds both views (input-layout=side-by-side or
# top-bottom).  Any container and codec that decodebin reads.
# usage: stereo-videos.sh LEFT_FILE [RIGHT_FILE] [property=value ...]
#   SINK in the environment replaces the window (default autovideosink).
# e.g.:  stereo-videos.sh left.mkv right.mkv num-disparities=128
#        stereo-videos.sh both.mp4 input-layout=side-by-side
# On a backend slower than the files' frame rate the window shows the pairs
# stereodepth can finish on time and skips the others (pairs-late).
set -euo pipefail
source "$(dirname "$0")/common.sh"
[ $# -ge 1 ] || { sed -n '2,10p' "$0"; exit 2; }
left=$1
shift
right=()
if [ $# -ge 1 ] && [ -f "$1" ]; then
  right=(filesrc location="$1" ! decodebin ! videoconvert ! queue ! sd.sink_right)
  shift
fi
[ -r "$left" ] || { echo "cannot read $left" >&2; exit 1; }
read -ra sink <<< "${SINK:-autovideosink}"

# The sink syncs, so the files play at their own rate; videoconvert passes
# the formats stereodepth takes through untouched.
gst-launch-1.0 -e \
  stereodepth name=sd "$@" ! queue ! depthcolormap ! videoconvert ! "${sink[@]}" \
  filesrc location="$left" ! decodebin ! videoconvert ! queue ! sd.sink_left \
  "${right[@]}"
