#!/bin/bash
# Builds tests/cuda/cuda-trace.c (a CUPTI time line, see its header) into
# OUT_DIR/libcuda-trace.so and copies CUPTI's library beside it.  CUPTI is
# not in Debian; its headers and library come from the wheel
# nvidia-cuda-cupti of the CUDA version in use:
#   pip download --no-deps 'nvidia-cuda-cupti==13.0.*' && unzip -q nvidia_cuda_cupti-*.whl
# usage: tests/cuda/build-trace.sh CUPTI_DIR OUT_DIR
#   (CUPTI_DIR holds include/cupti.h and lib/libcupti.so.*; for the wheel
#   above, nvidia/cu13)
set -eu
cupti=$1 out=$2
mkdir -p "$out"
cuda_inc=$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")/../include
cp "$cupti"/lib/libcupti.so.* "$out"/
for f in "$cupti"/lib/libcupti.so.*; do lib=$(basename "$f"); done
# $ORIGIN is for the loader, not the shell: CUPTI is found beside the tracer
# shellcheck disable=SC2016
gcc -O2 -shared -fPIC -Wall -Wextra -I"$cupti/include" -I"$cuda_inc" \
  "$(dirname "$0")/cuda-trace.c" -o "$out/libcuda-trace.so" \
  "$out/$lib" -Wl,-rpath,'$ORIGIN'
echo "$out/libcuda-trace.so"
