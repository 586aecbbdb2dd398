#!/bin/bash
# The element's sustained rate on the GPU machine: N pairs of 1920x1080 GRAY8
# frames (one textured frame per side, repeated by imagefreeze at no cost:
# videotestsrc drawing every frame makes only about 110 pairs a second) through
# stereodepth backend=cuda num-disparities=128 into fakesink; prints pairs
# per second from the wall time of the whole pipeline: the defaults twice
# (the spread between two runs), then one pair at a time (pairs-in-flight=1,
# what the element did before pairs overlapped), the frames in CUDA memory
# (NV12 through cudaupload before imagefreeze, so each frame is already on
# the GPU: what a hardware decoder hands over), and for scale a short CPU
# run.
# usage: tests/cuda/element-rate.sh PLUGIN_DIR [N]   (after source .gst/env.sh)
set -eu
export GST_PLUGIN_PATH=$1
n=${2:-600}
caps="video/x-raw,format=GRAY8,width=1920,height=1080,framerate=300/1"
# run LABEL BACKEND COUNT [PROPERTY=VALUE [CAPS UPLOAD]]
run () {
  local label=$1 backend=$2 count=$3 props=${4:-} in=${5:-$caps}
  local upload=${6:-identity}
  local t0 t1
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  gst-launch-1.0 -q stereodepth name=s backend="$backend" \
      num-disparities=128 $props ! fakesink sync=false \
    videotestsrc num-buffers=1 pattern=snow ! "$in" ! $upload ! \
      imagefreeze num-buffers="$count" ! queue ! s.sink_left \
    videotestsrc num-buffers=1 pattern=snow ! "$in" ! $upload ! \
      imagefreeze num-buffers="$count" ! queue ! s.sink_right
  t1=$(date +%s.%N)
  awk -v l="$label" -v n="$count" -v a="$t0" -v z="$t1" 'BEGIN {
    printf "%s: %d pairs of 1920x1080 in %.2f s: %.1f pairs/s\n", l, n,
      z - a, n / (z - a) }'
}
run cuda cuda 30 >/dev/null   # warm-up: module load, allocations
run "cuda (defaults)" cuda "$n"
run "cuda (defaults, again)" cuda "$n"
run "cuda pairs-in-flight=1" cuda "$n" pairs-in-flight=1
nv12="video/x-raw,format=NV12,width=1920,height=1080,framerate=300/1"
run "cuda, CUDA memory in" cuda "$n" "" "$nv12" cudaupload
run "cuda, CUDA memory in, again" cuda "$n" "" "$nv12" cudaupload
run "cuda, NV12 system memory in" cuda "$n" "" "$nv12"
run cpu cpu 1
