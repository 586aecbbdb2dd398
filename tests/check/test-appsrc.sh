#!/bin/bash
# Examples 4 and 5: the appsrc/appsink programs must print, for each of 10
# frames, the disparity they rendered (8 px) at the image centre, give or
# take the subpixel estimate's quarter pixel.
# usage: test-appsrc.sh PROGRAM [ARGS...]   (skips, 77, without PyGObject
# when PROGRAM is a Python interpreter)
set -euo pipefail
if [[ $(basename "$1") == python* ]] &&
  ! "$1" -c 'import gi; gi.require_version("GstApp", "1.0")' 2>/dev/null; then
  echo "PyGObject (python3-gi, gir1.2-gst-plugins-base-1.0) missing: skipped"
  exit 77
fi
out=$("$@" 10 8)
echo "$out"
n=$(awk '/disparity at the centre \(80, 60\) = [0-9.]+ px/ {
  d = $(NF - 1); if (d > 7.75 && d < 8.25) n++ } END { print n + 0 }' <<<"$out")
[ "$n" -eq 10 ] || { echo "expected 10 frames reading 8 px, got $n"; exit 1; }
