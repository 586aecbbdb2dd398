#!/bin/bash
# The element's sustained rate on the CPU backend: N pairs of 640x480 GRAY8
# frames (one textured frame per side, repeated by imagefreeze at no cost)
# through stereodepth backend=cpu num-disparities=64 (defaults otherwise)
# into fakesink; prints pairs per second from the wall time of the whole
# pipeline, twice (the spread between two runs).  The time a pair takes
# does not depend on what the frames show.
# usage: tests/bench/element-rate-cpu.sh PLUGIN_DIR [N] [PROPERTY=VALUE ...]
set -eu
export GST_PLUGIN_PATH=$1
n=${2:-300}
shift $(( $# < 2 ? $# : 2 ))
caps="video/x-raw,format=GRAY8,width=640,height=480,framerate=300/1"
run () {
  local count=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  gst-launch-1.0 -q stereodepth name=s backend=cpu num-disparities=64 "$@" \
      ! fakesink sync=false \
    videotestsrc num-buffers=1 pattern=snow ! "$caps" ! \
      imagefreeze num-buffers="$count" ! queue ! s.sink_left \
    videotestsrc num-buffers=1 pattern=snow ! "$caps" ! \
      imagefreeze num-buffers="$count" ! queue ! s.sink_right
  t1=$(date +%s.%N)
  awk -v n="$count" -v a="$t0" -v z="$t1" 'BEGIN {
    printf "%d pairs of 640x480 in %.2f s: %.1f pairs/s\n", n, z - a,
      n / (z - a) }'
}
run 10 "$@" >/dev/null   # warm-up: the plugin loads, buffers are allocated
run "$n" "$@"
run "$n" "$@"
