#!/bin/bash
# Belief propagation on the GPU machine in one call: the CPU-agreement test
# of hbp and tiled-bp, compute-sanitizer memcheck and racecheck on its
# synthetic scenes, and end-to-end timings (host images in, disparity out):
# hbp on the six sets of issue 5; tiled-bp on Tsukuba's 16 labels (the
# MEMOCODE 2013 measure: mismatching labels, bare labels) over tile sizes,
# iteration counts and smoothing, and its bad>1 on the sets it runs on the
# GPU.  Prints a short table last.
#
# usage: tests/cuda/run-bp-on-device.sh [BIN_DIR [PARTS]]
#   BIN_DIR holds test-cuda-bp, sd-bench and stereo/ (default .gpu-bp);
#   PARTS: any of bench, agree, sanitize (default all three).  The logs end
#   up in $OUT/bp-logs.tar.gz.
set -u
BIN=${1:-.gpu-bp}
PARTS=${2:-bench agree sanitize}
DATA=$BIN/stereo
OUT=${OUT:-/tmp/sd-out}
LOGS=$(mktemp -d)
SAN=/usr/local/cuda/bin/compute-sanitizer
mkdir -p "$OUT"
summary=()
# a summary line, printed at once too, so that a run cut short says what
# it had done
note () {
  summary+=("$1")
  printf '%-40s %s\n' "${1%%|*}" "${1#*|}"
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv


# one sd-bench run; appends "label|e2e, device, accuracy" to the summary
bench () {
  local label=$1 log=$LOGS/bench-${1//[ \/=]/_}.log
  shift
  "$BIN/sd-bench" --repeat 50 --warmup 5 --backend cuda "$@" > "$log" 2>&1
  local e2e dev acc
  e2e=$(sed -n 's/.*host memory in and out: median \([0-9.]*\) ms.*/\1/p' "$log")
  dev=$(sed -n 's/.*device memory in and out: median \([0-9.]*\) ms.*/\1/p' "$log")
  acc=$(sed -n 's/^accuracy: \(bad>0.5 [^,]*\), \(bad>1 [0-9.]* %\).*/\1, \2/p' "$log")
  note "$label|e2e $e2e ms, device $dev ms, $acc"
}

if [[ $PARTS == *bench* ]]; then
  for sd in mb2001_tsukuba:16 mb2001_venus:21 mb2003_teddy_quarter:64 \
      mb2003_cones_quarter:64 mb2003_teddy_half:128 mb2003_cones_half:128; do
    bench "hbp ${sd%%:*} D=${sd##*:}" --set "$DATA/${sd%%:*}" --algorithm hbp \
      --num-disparities "${sd##*:}"
    bench "hbp ad ${sd%%:*} D=${sd##*:}" --set "$DATA/${sd%%:*}" \
      --algorithm hbp --cost ad --num-disparities "${sd##*:}"
  done

  # tile/outer/inner/sigma; the contest's bare labels on its data cost
  # (absolute differences of intensities)
  bare="--cost ad --subpixel false --lr-check -1 --median false"
  for tois in 10/4/2/0 10/1/2/0 12/1/2/0 10/1/1/0 8/2/2/0 24/1/4/0 \
      24/1/1/0.7 20/1/1/0.7 16/1/1/0.7 24/1/2/0.7 12/1/2/0.7; do
    IFS=/ read -r t o i s <<< "$tois"
    bench "tiled tsukuba $tois" --set "$DATA/mb2001_tsukuba" \
      --algorithm tiled-bp --num-disparities 16 $bare --tile-size "$t" \
      --outer-iterations "$o" --inner-iterations "$i" --sigma "$s"
  done
  for sd in mb2001_tsukuba:16 mb2001_venus:21 mb2001_map:32 mb2001_barn1:32 \
      mb2003_teddy_quarter:64 mb2003_cones_quarter:64; do
    bench "tiled ${sd%%:*} D=${sd##*:}" --set "$DATA/${sd%%:*}" \
      --algorithm tiled-bp --num-disparities "${sd##*:}"
  done
fi

if [[ $PARTS == *agree* ]]; then
  "$BIN/test-cuda-bp" "$DATA" > "$LOGS/bp-agree.log" 2>&1
  note "agreement (test-cuda-bp)|exit $?; $(grep -c 'check failed' "$LOGS/bp-agree.log") failed checks"
  tail -n 40 "$LOGS/bp-agree.log"
fi
if [[ $PARTS == *sanitize* ]]; then
  timeout 400 "$SAN" --tool memcheck --error-exitcode 9 "$BIN/test-cuda-bp" \
    > "$LOGS/bp-memcheck.log" 2>&1
  note "memcheck (scenes)|exit $?; $(grep -h 'SUMMARY' "$LOGS/bp-memcheck.log" | tail -1)"
  # racecheck follows every shared-memory access: the whole test takes
  # longer than a device call, so it gets the small cases
  timeout 400 "$SAN" --tool racecheck --error-exitcode 9 \
    "$BIN/test-cuda-bp" --small > "$LOGS/bp-racecheck.log" 2>&1
  note "racecheck (tiled-bp, small)|exit $?; $(grep -h 'SUMMARY' "$LOGS/bp-racecheck.log" | tail -1)"
fi
tar -C "$LOGS" -czf "$OUT/bp-logs.tar.gz" .
echo
echo "==== summary ===="
for s in "${summary[@]}"; do
  printf '%-40s %s\n' "${s%%|*}" "${s#*|}"
done
