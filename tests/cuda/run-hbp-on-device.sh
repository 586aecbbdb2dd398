#!/bin/bash
# hbp on the GPU machine in one call: the CPU-agreement test, compute-
# sanitizer memcheck and racecheck on the synthetic scenes, and end-to-end
# timings (host images in, disparity out) on the six Middlebury sets of
# issue 5, float and half messages.  Prints a short table last.
#
# usage: tests/cuda/run-hbp-on-device.sh [BIN_DIR]
#   BIN_DIR holds test-cuda-hbp, sd-bench and stereo/ (default .gpu-hbp)
set -u
BIN=${1:-.gpu-hbp}
DATA=$BIN/stereo
OUT=${OUT:-/tmp/sd-out}
SAN=/usr/local/cuda/bin/compute-sanitizer
mkdir -p "$OUT"
summary=()

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv

"$BIN/test-cuda-hbp" "$DATA" > "$OUT/hbp-agree.log" 2>&1
summary+=("agreement (test-cuda-hbp)|exit $?; $(grep -c 'check failed' "$OUT/hbp-agree.log") failed checks")
timeout 300 "$SAN" --tool memcheck --error-exitcode 9 "$BIN/test-cuda-hbp" \
  > "$OUT/hbp-memcheck.log" 2>&1
summary+=("memcheck (scenes)|exit $?; $(grep -h 'ERROR SUMMARY' "$OUT/hbp-memcheck.log" | tail -1)")
timeout 300 "$SAN" --tool racecheck --error-exitcode 9 "$BIN/test-cuda-hbp" \
  > "$OUT/hbp-racecheck.log" 2>&1
summary+=("racecheck (scenes)|exit $?; $(grep -h 'SUMMARY' "$OUT/hbp-racecheck.log" | tail -1)")

for sd in mb2001_tsukuba:16 mb2001_venus:21 mb2003_teddy_quarter:64 \
    mb2003_cones_quarter:64 mb2003_teddy_half:128 mb2003_cones_half:128; do
  set_name=${sd%%:*}
  d=${sd##*:}
  for prec in float half; do
    log="$OUT/hbp-bench-$set_name-$prec.log"
    "$BIN/sd-bench" --set "$DATA/$set_name" --backend cuda --algorithm hbp \
      --num-disparities "$d" --bp-precision $prec --fill-holes on \
      --repeat 50 --warmup 5 > "$log" 2>&1
    e2e=$(sed -n 's/.*host memory in and out: median \([0-9.]*\) ms.*/\1/p' "$log")
    dev=$(sed -n 's/.*device memory in and out: median \([0-9.]*\) ms.*/\1/p' "$log")
    bad=$(sed -n 's/.*bad>1 \([0-9.]*\) %.*/\1/p' "$log")
    summary+=("$set_name D=$d $prec|e2e $e2e ms, device $dev ms, bad>1 $bad %")
  done
done
tail -n 30 "$OUT/hbp-agree.log"
echo
echo "==== summary ===="
for s in "${summary[@]}"; do
  printf '%-40s %s\n' "${s%%|*}" "${s#*|}"
done
