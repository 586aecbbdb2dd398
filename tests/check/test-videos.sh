#!/bin/bash
# examples/stereo-videos.sh: two MJPEG files of a stereo pair, and one file
# with both views side by side, played through the example; every pair
# reaches the sink.  The sink does not sync: one that syncs may rightly see
# pairs skipped on a loaded machine (CI's parallel tests made 12 of 30
# late), which test-live-pace checks on its own.
# usage: test-videos.sh SOURCE_ROOT SD_BENCH
set -euo pipefail
root=$1 bench=$2
frames=30
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bench" --synthetic 160x120 --save-pair "$tmp" >/dev/null
for side in left right; do
  python3 "$root/examples/pnm_to_png.py" "$tmp/$side.pgm" "$tmp/$side.png"
done

# video FILE ELEMENT [BRANCH...]: FRAMES frames of what ELEMENT (and the
# branches that feed it) gives, as MJPEG in AVI
video() {
  local file=$1 element=$2
  shift 2
  gst-launch-1.0 -q $element ! imagefreeze num-buffers=$frames ! \
    videoconvert ! video/x-raw,format=I420,framerate=30/1 ! jpegenc ! \
    avimux ! filesink location="$file" "$@"
}
video "$tmp/left.avi" "pngdec name=d" filesrc location="$tmp/left.png" ! d.
video "$tmp/right.avi" "pngdec name=d" filesrc location="$tmp/right.png" ! d.
video "$tmp/both.avi" "compositor name=c sink_1::xpos=160" \
  filesrc location="$tmp/left.png" ! pngdec ! videoconvert ! \
    imagefreeze num-buffers=1 ! c.sink_0 \
  filesrc location="$tmp/right.png" ! pngdec ! videoconvert ! \
    imagefreeze num-buffers=1 ! c.sink_1

# play NAME FILE... PROPERTY=VALUE...: plays through the example into
# numbered raw files and checks that every pair arrived, a 160x120 colour
# picture (the side-by-side file is one view wide)
play() {
  local name=$1 n
  shift
  mkdir "$tmp/$name"
  SINK="video/x-raw,format=RGB,width=160,height=120 ! multifilesink sync=false location=$tmp/$name/%05d.raw" \
    bash "$root/examples/stereo-videos.sh" "$@" backend=cpu \
      num-disparities=16 >/dev/null
  n=$(find "$tmp/$name" -name '*.raw' -size $((160 * 120 * 3))c | wc -l)
  [ "$n" -eq $frames ] ||
    { echo "$name: $n of $frames pairs reached the sink"; exit 1; }
  echo "$name: $frames of $frames pairs reached the sink"
}
play two-files "$tmp/left.avi" "$tmp/right.avi"
play side-by-side "$tmp/both.avi" input-layout=side-by-side
