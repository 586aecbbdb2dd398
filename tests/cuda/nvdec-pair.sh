#!/bin/bash
# Two H.264 files decoded on the GPU (nvh264dec) straight into stereodepth,
# the frames staying in CUDA memory (issue 13).  Prints which factories the
# machine has, the caps stereodepth received and the frames that came out.
# The files are made where an encoder is (the GPU machine's H100 has NVDEC
# but no NVENC), e.g. with x264enc:
#   gst-launch-1.0 videotestsrc num-buffers=90 ! video/x-raw,format=I420,\
#     width=1280,height=720 ! x264enc ! h264parse ! mp4mux ! filesink location=left.mp4
# usage: tests/cuda/nvdec-pair.sh PLUGIN_DIR LEFT.mp4 RIGHT.mp4
#   (after source .gst/env.sh)
set -u
export GST_PLUGIN_PATH=$1
left=$2
right=$3
for f in nvh264dec cudaupload h264parse qtdemux; do
  if gst-inspect-1.0 "$f" > /dev/null 2>&1; then
    echo "factory $f: yes"
  else
    echo "factory $f: no"
  fi
done
gst-inspect-1.0 nvh264dec > /dev/null 2>&1 || { echo "no NVDEC here"; exit 0; }
log=$(mktemp)
t0=$(date +%s.%N)
gst-launch-1.0 -v stereodepth name=s num-disparities=128 ! \
    fakesink name=out sync=false silent=false \
  filesrc location="$left" ! qtdemux ! h264parse ! nvh264dec ! \
    queue ! s.sink_left \
  filesrc location="$right" ! qtdemux ! h264parse ! nvh264dec ! \
    queue ! s.sink_right > "$log" 2>&1
rc=$?
t1=$(date +%s.%N)
grep -m1 -o 'GstAggregatorPad:sink_left: caps = [^,]*' "$log"
frames=$(grep -c 'out: last-message = chain' "$log")
awk -v r=$rc -v f="$frames" -v a="$t0" -v z="$t1" 'BEGIN {
  printf "nvh264dec pair: exit %d, %d disparity frames in %.2f s\n", r, f, z - a }'
grep -m3 -i 'error\|critical' "$log"
rm -f "$log"
