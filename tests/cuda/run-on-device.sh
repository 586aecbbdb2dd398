#!/bin/bash
# Everything the CUDA backend needs a GPU for, in one call of the GPU
# machine: the CPU-agreement test (in parallel parts), pairs in flight
# against process (test-async), compute-sanitizer memcheck and racecheck on
# small inputs, and the benchmarks of issue 4.
# Logs go to $OUT/logs.tar.gz; a short table is printed last.
#
# usage: tests/cuda/run-on-device.sh [BIN_DIR [DATA_DIR [STEPS]]]
#   BIN_DIR  holds test-cuda-agreement, test-async and sd-bench (default .gpu)
#   DATA_DIR the Middlebury sets (default BIN_DIR/stereo)
#   STEPS    any of "test sanitize bench fill guided rectify confidence
#            bands profile" (default the first three); fill times hole
#            filling (on and off, twice each) at 1920x1080; guided the
#            guided median (off and on, with fill-holes off and on, twice
#            each) at 1920x1080; rectify times
#            undistort-and-rectify at 1920x1080 (sd-bench with and without
#            BIN_DIR/rig1080.yaml,
#            written by sd-rig-calibration 1920 1080), confidence the
#            confidence plane (sgm and hbp with and without it), twice
#            each, in this call; bands the whole frame against bands
#            chosen by --max-device-memory at 1080p and 4K
# Built here with: meson setup build-cuda -Dcuda-archs=90 -Dgstreamer=disabled
#   && ninja -C build-cuda && cp build-cuda/tests/cuda/test-cuda-agreement
#   build-cuda/tests/engine/test-async build-cuda/tests/sd-bench .gpu/
#   && cp -r ../shared/data/stereo .gpu/
set -u
BIN=${1:-.gpu}
DATA=${2:-$BIN/stereo}
STEPS=${3:-test sanitize bench}
OUT=${OUT:-/tmp/sd-out}
LOGS=$(mktemp -d)
SAN=/usr/local/cuda/bin/compute-sanitizer
PARTS=8
# the sanitizers' parts of the quick cases: racecheck's second half of two
# ran past 420 s on 2026-11-28 once the brightness cases came in, and one
# quarter on 2026-11-29 (an H200) once the moved rows came in; racecheck
# is the slower tool, so it gets twice the parts
SAN_PARTS=4
RACE_PARTS=8
summary=()

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
  --format=csv > "$LOGS/gpu.txt" 2>&1
cat "$LOGS/gpu.txt"
date -u +"%Y-%m-%d %H:%M UTC" >> "$LOGS/gpu.txt"

pids=()
if [[ " $STEPS " == *" test "* ]]; then
  for i in $(seq 0 $((PARTS - 1))); do
    "$BIN/test-cuda-agreement" "$DATA" --part "$i/$PARTS" \
      > "$LOGS/agree-$i.log" 2>&1 &
    pids+=($!)
  done
  "$BIN/test-async" cuda > "$LOGS/async.log" 2>&1
  summary+=("test-async cuda|exit $?; $(grep -c 'check failed' "$LOGS/async.log") failed checks")
fi
san_pids=()
names=()
logs=()
if [[ " $STEPS " == *" sanitize "* ]]; then
  for tool in memcheck racecheck; do
    parts=$SAN_PARTS
    [ $tool = racecheck ] && parts=$RACE_PARTS
    for i in $(seq 0 $((parts - 1))); do
      timeout 420 "$SAN" --tool $tool --error-exitcode 9 \
        "$BIN/test-cuda-agreement" --quick --part "$i/$parts" \
        > "$LOGS/$tool-$i.log" 2>&1 &
      san_pids+=($!)
      names+=("$tool (quick part $i/$parts)")
      logs+=("$tool-$i")
    done
  done
  # pairs in flight: three streams, slots reused as they are collected
  timeout 420 "$SAN" --tool memcheck --error-exitcode 9 \
    "$BIN/test-async" cuda > "$LOGS/memcheck-async.log" 2>&1 &
  san_pids+=($!)
  names+=("memcheck test-async cuda")
  logs+=(memcheck-async)
fi

if [ ${#pids[@]} -gt 0 ]; then
  fails=0
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}"
    rc=$?
    [ $rc -ne 0 ] && fails=$((fails + 1)) && echo "agreement part $i: exit $rc"
  done
  ok=$(cat "$LOGS"/agree-*.log | grep -c '^ok ')
  bad=$(cat "$LOGS"/agree-*.log | grep -c 'check failed')
  summary+=("agreement (bit-exact)|$ok comparisons ok, $bad failed")
  summary+=("agreement parts failed|$fails of ${#pids[@]}")
  cat "$LOGS"/agree-*.log | grep 'check failed' | head -20
fi
if [ ${#san_pids[@]} -gt 0 ]; then
  for i in "${!san_pids[@]}"; do
    wait "${san_pids[$i]}"
    rc=$?
    summary+=("${names[$i]}|exit $rc; $(grep -h 'RACECHECK SUMMARY\|ERROR SUMMARY' "$LOGS/${logs[$i]}.log" | tail -1)")
  done
  tail -n 3 "$LOGS"/memcheck*.log "$LOGS"/racecheck*.log
fi

if [[ " $STEPS " == *" bench "* ]]; then
  # the libSGM comparison: 8 paths, census 9x7, subpixel, and like libSGM
  # no guided median
  # size:disparities:paths:p2:environment (- for the defaults)
  configs=""
  # the sizes twice: the spread between two runs of one build
  for run in 1 2; do
    for sz in 640x480:128 1242x375:128 1920x1080:128 1920x1080:256 \
        3840x2160:256; do
      configs="$configs $sz:8:48:-"
    done
  done
  for cfg in $configs 1920x1080:128:4:48:- 1920x1080:128:8:300:-; do
    IFS=: read -r size d paths p2 env <<< "$cfg"
    n=$((${n:-0} + 1))
    log="$LOGS/bench-$n-$size-$d-$paths-$p2-${env//=/_}.log"
    [ "$env" = - ] && env=""
    env $env "$BIN/sd-bench" --synthetic "$size" --backend cuda \
      --num-disparities "$d" --paths "$paths" --cost census --census-window 9x7 \
      --subpixel true --guided-median false --p2 "$p2" --repeat 50 \
      --warmup 10 > "$log" 2>&1
    line=$(grep '^cuda time' "$log")
    dev=$(sed -n 's/.*device memory in and out: median \([0-9.]*\) ms.*/\1/p' <<< "$line")
    rate=$(sed -n 's/.*(\([0-9.]*\) G path-cell.*/\1/p' <<< "$line")
    e2e=$(sed -n 's/.*host memory in and out: median \([0-9.]*\) ms.*/\1/p' <<< "$line")
    wall=$(sed -n 's/.*median \([0-9.]*\) ms (wall clock).*/\1/p' <<< "$line")
    stages=$(sed -n 's/cuda stages (device memory, medians): //p' "$log")
    pipe=$(sed -n 's/^pipelined: \([0-9.]*\) ms a pair.*/\1/p' "$log")
    summary+=("bench $size D=$d paths=$paths p2=$p2 ${env:-default}|device $dev ms ($rate G/s), e2e $e2e ms (events), $wall ms (wall), $pipe ms a pair with two in flight (wall); $stages")
  done
fi

# One timed sd-bench run at 1920x1080 with 128 disparities: label, then
# sd-bench's extra arguments; adds the device and end-to-end medians to the
# summary.
time_1080 () {
  local label=$1 log="$LOGS/time-${1// /_}.log"
  shift
  "$BIN/sd-bench" --synthetic 1920x1080 --backend cuda \
    --num-disparities 128 --repeat 200 --warmup 20 "$@" > "$log" 2>&1
  local line dev e2e
  line=$(grep '^cuda time' "$log")
  dev=$(sed -n 's/.*device memory in and out: median \([0-9.]*\) ms.*/\1/p' <<< "$line")
  e2e=$(sed -n 's/.*host memory in and out: median \([0-9.]*\) ms.*/\1/p' <<< "$line")
  summary+=("$label|device $dev ms, e2e $e2e ms")
}

if [[ " $STEPS " == *" fill "* ]]; then
  # what hole filling (speckles, then runs) adds at 1920x1080
  for run in 1 2; do
    time_1080 "fill 1920x1080 D128 run $run off" --fill-holes off
    time_1080 "fill 1920x1080 D128 run $run on" --fill-holes on
  done
fi

if [[ " $STEPS " == *" guided "* ]]; then
  # what the guided median adds at 1920x1080, as shipped and dense
  for run in 1 2; do
    for fill in off on; do
      time_1080 "guided 1920x1080 D128 run $run fill $fill, off" \
        --fill-holes $fill --guided-median false
      time_1080 "guided 1920x1080 D128 run $run fill $fill, on" \
        --fill-holes $fill --guided-median true
    done
  done
fi

if [[ " $STEPS " == *" rectify "* ]]; then
  for run in 1 2; do
    time_1080 "rectify 1920x1080 D128 run $run none"
    time_1080 "rectify 1920x1080 D128 run $run rig1080.yaml" \
      --calibration "$BIN/rig1080.yaml"
  done
fi

# the confidence's cost: the same pair without and with it, twice
if [[ " $STEPS " == *" confidence "* ]]; then
  for run in 1 2; do
    # hbp takes ten times as long: fewer runs (later options win)
    for alg in "sgm" "hbp --repeat 50 --warmup 5"; do
      time_1080 "${alg%% *} 1920x1080 D128 run $run" --algorithm $alg
      time_1080 "${alg%% *} 1920x1080 D128 run $run confidence" \
        --algorithm $alg --confidence "$LOGS/confidence-${alg%% *}.png"
    done
  done
fi

# horizontal bands: the whole frame, then bounded by max-device-memory so
# that it goes in bands (issue 16's footprint sizes), twice
if [[ " $STEPS " == *" bands "* ]]; then
  for run in 1 2; do
    for cfg in 1920x1080:128:0 1920x1080:128:1024 3840x2160:256:0 \
        3840x2160:256:4096; do
      IFS=: read -r size d mb <<< "$cfg"
      log="$LOGS/bands-$run-$size-$d-$mb.log"
      "$BIN/sd-bench" --synthetic "$size" --backend cuda --num-disparities "$d" \
        --max-device-memory "$mb" --repeat 50 --warmup 5 > "$log" 2>&1
      line=$(grep '^cuda time' "$log")
      dev=$(sed -n 's/.*device memory in and out: median \([0-9.]*\) ms.*/\1/p' <<< "$line")
      e2e=$(sed -n 's/.*host memory in and out: median \([0-9.]*\) ms.*/\1/p' <<< "$line")
      mem=$(sed -n 's/.*; device memory \([0-9]*\) MB.*/\1/p' <<< "$line")
      rows=$(sed -n 's/.*bands of \([0-9]*\) rows.*/\1/p' <<< "$line")
      summary+=("bands $size D=$d max $mb MB run $run|device $dev ms, e2e $e2e ms, $mem MB, band rows ${rows:-none}")
    done
  done
fi

if [[ " $STEPS " == *" profile "* ]]; then
  # the kernels of one 1920x1080 frame with 128 disparities, by Nsight Compute
  NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
  for sz in 1920x1080:128 3840x2160:256; do
  timeout 300 "$NCU" --launch-count 6 --metrics \
gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,\
dram__throughput.avg.pct_of_peak_sustained_elapsed,\
sm__warps_active.avg.pct_of_peak_sustained_active,\
smsp__issue_active.avg.pct_of_peak_sustained_active,\
dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,\
lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,\
lts__t_sectors_srcunit_tex_op_read.sum,\
smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,\
smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,\
smsp__average_warp_latency_issue_stalled_drain.ratio,\
smsp__average_warp_latency_issue_stalled_membar.ratio \
    "$BIN/sd-bench" --synthetic "${sz%%:*}" --backend cuda \
    --num-disparities "${sz##*:}" --repeat 1 --warmup 0 > "$LOGS/ncu-${sz%%:*}.log" 2>&1
  grep -E '^  [a-z_]+|gpu__time|throughput|warps_active|issue_active|dram__bytes|registers|lts__|stalled' "$LOGS/ncu-${sz%%:*}.log" | head -90
  done
fi

mkdir -p "$OUT"
tar -czf "$OUT/logs.tar.gz" -C "$LOGS" .
echo
echo "==== summary ===="
for s in "${summary[@]}"; do
  printf '%-44s %s\n' "${s%%|*}" "${s#*|}"
done
