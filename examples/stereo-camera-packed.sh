#!/bin/bash
# Example: live colour preview of one stereo camera that sends both views in
# each frame (UVC stereo modules, ZED-type cameras), side by side or one
# above the other.  Views that are not rectified on the camera are
# rectified by the element with calibration=FILE (OpenCV stereoRectify
# output), which also gives depth in millimetres with output=depth.
# usage: stereo-camera-packed.sh [DEVICE] [side-by-side|top-bottom] [property=value ...]
#   DEVICE defaults to /dev/video0, the layout to side-by-side; WIDTH,
#   HEIGHT and FPS in the environment pick the camera mode (default
#   2560x720 at 30/1: two 1280x720 views side by side).
# e.g.:  stereo-camera-packed.sh /dev/video0 side-by-side num-disparities=128
#        stereo-camera-packed.sh /dev/video0 side-by-side calibration=rig.yaml output=depth
# Stop with Ctrl-C.
set -euo pipefail
source "$(dirname "$0")/common.sh"
device=/dev/video0 layout=side-by-side
if [ $# -ge 1 ] && [[ $1 == /dev/* ]]; then
  device=$1
  shift
fi
if [ $# -ge 1 ] && [[ $1 == side-by-side || $1 == top-bottom ]]; then
  layout=$1
  shift
fi
mode="video/x-raw,width=${WIDTH:-2560},height=${HEIGHT:-720},framerate=${FPS:-30/1}"

# depthcolormap colours what stereodepth outputs: disparity, or depth
colours=disparity
for arg in "$@"; do
  [ "$arg" = output=depth ] && colours=depth
done

# Cameras rarely put multiview-mode in their caps, so input-layout says how
# the frame holds the views; the element splits it without a copy.  The
# camera's YUY2 (or GRAY8, NV12...) passes videoconvert untouched; it
# converts only formats the element does not take.
gst-launch-1.0 -e \
  v4l2src device="$device" ! "$mode" ! videoconvert ! queue ! \
  stereodepth input-layout="$layout" "$@" ! \
    depthcolormap input="$colours" smoothing=0.8 ! \
    videoconvert ! autovideosink sync=false
