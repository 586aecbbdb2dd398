#!/bin/bash
# Example 1 end to end: examples/stereo-images.sh on an image pair through
# gst-launch-1.0 must give the disparity sd-bench gives on the same pair,
# pixel for pixel, and a colour picture.
# usage: test-images.sh SOURCE_ROOT SD_BENCH (synthetic | SET_DIR) [property=value ...]
# With SET_DIR (a Middlebury set of shared/data/stereo) missing, it skips (77).
set -euo pipefail
root=$1 bench=$2 input=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "$input" = synthetic ]; then
  "$bench" --synthetic 64x48 --save-pair "$tmp" >/dev/null
  left=$tmp/left.pgm right=$tmp/right.pgm
else
  [ -d "$input" ] || { echo "no data set at $input: skipped"; exit 77; }
  left=$(ls "$input"/left.* | head -1) right=$(ls "$input"/right.* | head -1)
fi

# sd-bench takes the same properties as --name value
bench_args=(--backend cpu)
for p in "$@"; do bench_args+=("--${p%%=*}" "${p#*=}"); done
"$bench" --left "$left" --right "$right" "${bench_args[@]}" \
  --out "$tmp/bench.pgm" >/dev/null

bash "$root/examples/stereo-images.sh" "$left" "$right" "$tmp/out" \
  backend=cpu "$@"
[ -s "$tmp/out/disparity-color.png" ] || { echo "no colour picture"; exit 1; }

# read the 16-bit PNG back as the element's GRAY16_LE
gst-launch-1.0 -q filesrc location="$tmp/out/disparity.png" ! pngdec ! \
  videoconvert ! video/x-raw,format=GRAY16_LE ! \
  filesink location="$tmp/element.raw"
python3 "$root/tests/check/same-disparity.py" "$tmp/bench.pgm" \
  "$tmp/element.raw"
