#!/bin/bash
# Example 2: live colour preview of two cameras (a calibrated, rectified
# pair: stereodepth matches along image rows).
# usage: stereo-cameras.sh [LEFT_DEVICE RIGHT_DEVICE] [property=value ...]
#   devices default to /dev/video0 and /dev/video2 (many USB cameras also
#   show a metadata node at the odd numbers); WIDTH, HEIGHT and FPS in the
#   environment pick the camera mode (default 640x480 at 30/1), and
#   CONFIDENCE=1 opens a second window with the confidence (bright = certain).
#   CALIBRATION=rig.yaml (cameras that are not rectified) undistorts and
#   rectifies both views with it, and opens a window with the left camera's
#   colour picture rectified the same way (stereorectify): it lines up with
#   the depth window pixel for pixel.
# e.g.:  stereo-cameras.sh /dev/video0 /dev/video2 num-disparities=96
# Stop with Ctrl-C.
set -euo pipefail
source "$(dirname "$0")/common.sh"
left=/dev/video0 right=/dev/video2
if [ $# -ge 2 ] && [[ $1 == /dev/* ]]; then
  left=$1 right=$2
  shift 2
fi
mode="video/x-raw,width=${WIDTH:-640},height=${HEIGHT:-480},framerate=${FPS:-30/1}"
confidence=()
if [ "${CONFIDENCE:-0}" = 1 ]; then
  confidence=(sd.src_confidence ! queue ! videoconvert ! autovideosink sync=false)
fi
calibration=()
left_view=(videoconvert ! video/x-raw,format=GRAY8 ! queue ! sd.sink_left)
if [ -n "${CALIBRATION:-}" ]; then
  calibration=(calibration="$CALIBRATION")
  left_view=(videoconvert ! tee name=left
    left. ! queue ! videoconvert ! video/x-raw,format=GRAY8 ! sd.sink_left
    left. ! queue ! stereorectify calibration="$CALIBRATION" ! videoconvert !
    autovideosink sync=false)
fi

# Only luma is matched, so the cameras' frames become GRAY8 right away.
# The preview sinks do not sync: on the CPU backend a pair may take longer
# than a frame, and late pictures are better than none.  Each of the
# element's source pads has its own queue, as a second one needs.
# depthtemporal evens out the shimmer of a still scene from frame to frame.
# Two cameras set their exposure each on its own: match-brightness maps the
# right view's brightness onto the left's (match-brightness=false after it
# on the command line turns it off again).
gst-launch-1.0 -e \
  stereodepth name=sd match-brightness=true "${calibration[@]}" "$@" ! queue ! depthtemporal ! depthcolormap smoothing=0.8 ! \
    videoconvert ! autovideosink sync=false \
  "${confidence[@]}" \
  v4l2src device="$left" ! "$mode" ! "${left_view[@]}" \
  v4l2src device="$right" ! "$mode" ! videoconvert ! video/x-raw,format=GRAY8 ! \
    queue ! sd.sink_right
