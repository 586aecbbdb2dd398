#!/bin/bash
# The README's first command: builds the project and computes the disparity
# of a synthetic stereo pair the project renders itself (no camera, no GPU
# needed: the CPU backend runs when there is no CUDA device).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/install-deps.sh
bash tests/build.sh >/dev/null
out=out/demo
mkdir -p "$out"
./build/tests/sd-bench --synthetic 640x480 --save-pair "$out" \
  --num-disparities 64 --fill-holes true \
  --out "$out/disparity.pgm" --color "$out/disparity-color.ppm"
echo
echo "input pair:  $out/left.pgm $out/right.pgm (ground truth: $out/gt.pfm)"
echo "disparity:   $out/disparity.pgm (16-bit: value = 16 * disparity in pixels, 0 = invalid)"
echo "picture:     $out/disparity-color.ppm (turbo colours, near = red, black = invalid)"
