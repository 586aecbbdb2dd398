#!/bin/bash
# The element's sustained rate on the GPU machine: pairs of 1920x1080 frames
# (one textured frame per side, repeated by imagefreeze at no cost:
# videotestsrc drawing every frame makes only about 110 pairs a second)
# through stereodepth backend=cuda num-disparities=128 into fakesink.
#
# Each setting runs twice, N and 3N pairs, and the rate is 2N pairs over the
# difference of the two wall times: what a pipeline start costs (CUDA
# contexts, module loading, the first allocations: up to 2 s with nvcodec's
# elements in the pipeline) cancels out, and only the steady state is left.
# Settings: the defaults, twice (the spread between runs); one pair at a
# time (pairs-in-flight=1, what the element did before pairs overlapped);
# NV12 in system memory; NV12 in CUDA memory (cudaupload before imagefreeze,
# the caps after it forced to memory:CUDAMemory, so each frame is already
# on the GPU: what a hardware decoder hands over).
# With two H.264 files of at least N frames, also two nvh264dec
# streams into the element, and the two decoders alone.
# usage: tests/cuda/element-rate.sh PLUGIN_DIR [N [LEFT.mp4 RIGHT.mp4]]
#   (after source .gst/env.sh)
set -eu
export GST_PLUGIN_PATH=$1
n=${2:-600}
gray8="video/x-raw,format=GRAY8,width=1920,height=1080,framerate=300/1"
nv12="video/x-raw,format=NV12,width=1920,height=1080,framerate=300/1"
cuda_nv12="video/x-raw(memory:CUDAMemory),format=NV12"
# branch SIDE PAIRS CAPS UPLOAD: one side's source, as gst-launch words
branch () {
  echo "videotestsrc num-buffers=1 pattern=snow ! $3 ! $4 !" \
    "imagefreeze num-buffers=$2 ! queue ! s.sink_$1"
}
# decoded SIDE PAIRS FILE: one side decoded by nvh264dec, PAIRS frames
decoded () {
  echo "filesrc location=$3 ! qtdemux ! h264parse ! nvh264dec !" \
    "identity eos-after=$2 ! queue ! s.sink_$1"
}
# seconds PROPS LEFT_WORDS RIGHT_WORDS: the wall time of one pipeline
seconds () {
  local t0 t1
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  gst-launch-1.0 -q stereodepth name=s backend=cuda num-disparities=128 \
      $1 ! fakesink sync=false $2 $3 >/dev/null
  t1=$(date +%s.%N)
  awk -v a="$t0" -v z="$t1" 'BEGIN { printf "%.3f", z - a }'
}
# report LABEL N SECONDS_N SECONDS_3N
report () {
  awk -v l="$1" -v n="$2" -v a="$3" -v z="$4" 'BEGIN {
    printf "%s: %d pairs in %.2f s, %d in %.2f s: %.1f pairs/s\n", l, n, a,
      3 * n, z, 2 * n / (z - a) }'
}
# rate LABEL PROPS [CAPS UPLOAD]
rate () {
  local in=${3:-$gray8} upload=${4:-identity}
  report "$1" "$n" \
    "$(seconds "$2" "$(branch left "$n" "$in" "$upload")" \
        "$(branch right "$n" "$in" "$upload")")" \
    "$(seconds "$2" "$(branch left $((3 * n)) "$in" "$upload")" \
        "$(branch right $((3 * n)) "$in" "$upload")")"
}
seconds "" "$(branch left 30 "$gray8" identity)" \
  "$(branch right 30 "$gray8" identity)" >/dev/null   # warm-up: module load
rate "defaults" ""
rate "defaults, again" ""
rate "pairs-in-flight=1" pairs-in-flight=1
rate "NV12, system memory" "" "$nv12"
rate "NV12, CUDA memory" "" "$nv12" "cudaupload ! $cuda_nv12"
rate "NV12, CUDA memory, again" "" "$nv12" "cudaupload ! $cuda_nv12"
# two H.264 files of at least N frames, decoded on the GPU
[ $# -ge 4 ] && gst-inspect-1.0 nvh264dec >/dev/null 2>&1 || exit 0
m=$((n / 3))
report "nvh264dec, CUDA memory" "$m" \
  "$(seconds "" "$(decoded left "$m" "$3")" "$(decoded right "$m" "$4")")" \
  "$(seconds "" "$(decoded left $((3 * m)) "$3")" \
      "$(decoded right $((3 * m)) "$4")")"
# alone FRAMES LEFT.mp4 RIGHT.mp4: the two decoders, without the element
alone () {
  local t0 t1
  t0=$(date +%s.%N)
  gst-launch-1.0 -q filesrc location="$2" ! qtdemux ! h264parse ! nvh264dec ! \
      identity eos-after="$1" ! fakesink sync=false \
    filesrc location="$3" ! qtdemux ! h264parse ! nvh264dec ! \
      identity eos-after="$1" ! fakesink sync=false >/dev/null
  t1=$(date +%s.%N)
  awk -v a="$t0" -v z="$t1" 'BEGIN { printf "%.3f", z - a }'
}
report "the two nvh264dec alone" "$m" "$(alone "$m" "$3" "$4")" \
  "$(alone $((3 * m)) "$3" "$4")"
