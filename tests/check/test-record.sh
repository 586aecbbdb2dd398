#!/bin/bash
# Example 3 and docs/recording.md: a recording made by
# examples/record-depth.sh reads back to exactly what stereodepth output,
# every pixel of every frame (PNG sequence; FFV1/Matroska too where
# gstreamer1.0-libav is installed).
# usage: test-record.sh SOURCE_ROOT SD_BENCH
set -euo pipefail
root=$1 bench=$2
frames=3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bench" --synthetic 64x48 --save-pair "$tmp" >/dev/null
props=(backend=cpu num-disparities=16)
bash "$root/examples/record-depth.sh" --images "$tmp/left.pgm" \
  "$tmp/right.pgm" --frames $frames "$tmp/rec" "${props[@]}"

# what the element outputs, straight to raw files
gst-launch-1.0 -q stereodepth name=sd "${props[@]}" ! \
  multifilesink location="$tmp/ref-%05d.raw" \
  filesrc location="$tmp/rec/left.png" ! pngdec ! \
    imagefreeze num-buffers=$frames ! sd.sink_left \
  filesrc location="$tmp/rec/right.png" ! pngdec ! \
    imagefreeze num-buffers=$frames ! sd.sink_right

# compare PREFIX: the frames read back into $tmp/PREFIX-*.raw against ref
compare() {
  local i n=0
  for ((i = 0; i < frames; i++)); do
    f=$(printf '%05d' $i)
    cmp "$tmp/ref-$f.raw" "$tmp/$1-$f.raw"
    n=$((n + 1))
  done
  [ "$(tr -d '\0' < "$tmp/ref-00000.raw" | wc -c)" -gt 0 ] ||
    { echo "the disparity is all invalid"; exit 1; }
  echo "$1: $n frames read back bit-exactly"
}

gst-launch-1.0 -q multifilesrc location="$tmp/rec/depth-%05d.png" \
    caps=image/png,framerate=30/1 ! pngdec ! videoconvert ! \
  video/x-raw,format=GRAY16_LE ! multifilesink location="$tmp/png-%05d.raw"
compare png

if [ -e "$tmp/rec/depth.mkv" ]; then
  gst-launch-1.0 -q filesrc location="$tmp/rec/depth.mkv" ! matroskademux ! \
    avdec_ffv1 ! videoconvert ! video/x-raw,format=GRAY16_LE ! \
    multifilesink location="$tmp/mkv-%05d.raw"
  compare mkv
else
  echo "avenc_ffv1 is not installed (gstreamer1.0-libav): FFV1 not checked"
fi
