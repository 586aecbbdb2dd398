#!/bin/bash
# The README's first command: builds the project, renders a synthetic stereo
# pair, and runs it through the stereodepth element in a real GStreamer
# pipeline (examples/stereo-images.sh), which writes the 16-bit disparity and
# a colour picture of it.  No camera and no GPU needed: the CPU backend runs
# when there is no CUDA device.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/install-deps.sh
bash tests/build.sh >/dev/null
out=out/demo
mkdir -p "$out"
./build/tests/sd-bench --synthetic 640x480 --save-pair "$out" >/dev/null
bash examples/stereo-images.sh "$out/left.pgm" "$out/right.pgm" "$out" \
  num-disparities=64 fill-holes=on
echo "input pair: $out/left.pgm $out/right.pgm (ground truth: $out/gt.pfm)"
