#!/bin/bash
# Example 3 and docs/recording.md: a recording made by
# examples/record-depth.sh reads back to exactly what stereodepth output,
# every pixel of every frame (PNG sequence; FFV1/Matroska too where
# gstreamer1.0-libav is installed), for disparity and for depth in
# millimetres (output=depth).
# usage: test-record.sh SOURCE_ROOT SD_BENCH
set -euo pipefail
root=$1 bench=$2
frames=3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bench" --synthetic 64x48 --save-pair "$tmp" >/dev/null

# compare DIR PREFIX: the frames read back into DIR/PREFIX-*.raw against
# DIR/ref-*.raw
compare() {
  local i n=0
  for ((i = 0; i < frames; i++)); do
    f=$(printf '%05d' $i)
    cmp "$1/ref-$f.raw" "$1/$2-$f.raw"
    n=$((n + 1))
  done
  [ "$(tr -d '\0' < "$1/ref-00000.raw" | wc -c)" -gt 0 ] ||
    { echo "the output is all invalid"; exit 1; }
  echo "$(basename "$1") $2: $n frames read back bit-exactly"
}

# record NAME PROPERTY=VALUE...: records through the example, then checks
# the recording against the element's own output
record() {
  local dir=$tmp/$1
  shift
  local props=(backend=cpu num-disparities=16 "$@")
  mkdir -p "$dir"
  bash "$root/examples/record-depth.sh" --images "$tmp/left.pgm" \
    "$tmp/right.pgm" --frames $frames "$dir/rec" "${props[@]}"

  # what the element outputs, straight to raw files
  gst-launch-1.0 -q stereodepth name=sd "${props[@]}" ! \
    multifilesink location="$dir/ref-%05d.raw" \
    filesrc location="$dir/rec/left.png" ! pngdec ! \
      imagefreeze num-buffers=$frames ! sd.sink_left \
    filesrc location="$dir/rec/right.png" ! pngdec ! \
      imagefreeze num-buffers=$frames ! sd.sink_right

  gst-launch-1.0 -q multifilesrc location="$dir/rec/depth-%05d.png" \
      caps=image/png,framerate=30/1 ! pngdec ! videoconvert ! \
    video/x-raw,format=GRAY16_LE ! multifilesink location="$dir/png-%05d.raw"
  compare "$dir" png

  if [ -e "$dir/rec/depth.mkv" ]; then
    gst-launch-1.0 -q filesrc location="$dir/rec/depth.mkv" ! matroskademux ! \
      avdec_ffv1 ! videoconvert ! video/x-raw,format=GRAY16_LE ! \
      multifilesink location="$dir/mkv-%05d.raw"
    compare "$dir" mkv
  else
    echo "avenc_ffv1 is not installed (gstreamer1.0-libav): FFV1 not checked"
  fi
}

record disparity
# millimetres: a 700 px lens on a 120 mm bar puts this scene at 5 to 17 m
record depth output=depth focal-length=700 baseline=120
