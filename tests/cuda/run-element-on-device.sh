#!/bin/bash
# The element's GPU tests in one call of the GPU machine, after
# `source .gst/env.sh` (docs/performance.md, How to reproduce): the check
# tests that skip on CI without a GPU, the element's CPU tests beside them
# on that machine, and compute-sanitizer memcheck and racecheck over the
# element's CUDA cases that push frames through gaps and pairs in flight.
# A short table is printed last; each log is in $OUT.
#
# usage: tests/cuda/run-element-on-device.sh DIR
#   DIR holds libgststereodepth.so and, from build/tests/check/, test-cuda,
#   test-cuda-memory, test-cuda-gpus, test-stereorectify-cuda and
#   test-stereodepth
set -u
dir=$(cd "${1:?usage: $0 DIR}" && pwd)
OUT=${OUT:-/tmp/sd-element-out}
mkdir -p "$OUT"
# a registry of its own: one written while the plugin could not load keeps
# it out, and a warm machine keeps /tmp between calls
export GST_PLUGIN_PATH=$dir GST_REGISTRY=$OUT/registry-$$.bin
export CK_DEFAULT_TIMEOUT=300
san=/usr/local/cuda/bin/compute-sanitizer
summary=()

if ! gst-inspect-1.0 stereodepth > "$OUT/inspect.log" 2>&1; then
  echo "the plugin does not load:"
  tail -n 5 "$OUT/inspect.log"
  exit 1
fi

# run NAME COMMAND...: the command's exit status and check's summary line
run () {
  local name=$1 start=$SECONDS rc
  shift
  "$@" > "$OUT/$name.log" 2>&1
  rc=$?
  summary+=("$(printf '%-30s exit %-3s %4s s  %s' "$name" "$rc" \
    $((SECONDS - start)) "$(grep -hE '^[0-9]+%: Checks|ERROR SUMMARY|RACECHECK SUMMARY' \
    "$OUT/$name.log" | tail -n 1)")")
}

for t in test-cuda test-cuda-memory test-stereorectify-cuda test-cuda-gpus \
    test-stereodepth; do
  run "$t" "$dir/$t"
done
# the sanitizers see only their own process
export CK_FORK=no
for tool in memcheck racecheck; do
  for case in test_cuda_gaps test_cuda_in_flight; do
    GST_CHECKS=$case run "$tool-$case" \
      "$san" --tool $tool --error-exitcode 9 "$dir/test-cuda"
  done
done
printf '%s\n' "${summary[@]}"
