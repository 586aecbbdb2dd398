#!/bin/bash
# The cpu backend's scaling with threads: sd-bench medians with
# OMP_NUM_THREADS 1 to 16 for each instruction-set build, on Tsukuba D64,
# Cones half D128 and HBP Tsukuba, after the reference once.  Runs where
# sd-bench runs: on the GPU machine, copy sd-bench, its libraries (libpng16,
# libgomp) and the two set folders with sets.tsv, and set LD_LIBRARY_PATH.
# usage: tests/bench/cpu-scaling.sh SD_BENCH DATA_DIR
set -eu
bench=$1 data=$2
lscpu | grep -E "Model name|^CPU\(s\)" || true
median () {
  "$bench" "$@" 2>&1 | sed -n 's/^time: median \([0-9.]*\) ms.*/\1/p'
}
tsukuba=(--set "$data/mb2001_tsukuba")
cones=(--set "$data/mb2003_cones_half")
echo "reference: tsukuba64 $(median "${tsukuba[@]}" --backend reference \
  --num-disparities 64 --repeat 3) cones128 $(median "${cones[@]}" \
  --backend reference --num-disparities 128 --repeat 3) hbp $(median \
  "${tsukuba[@]}" --backend reference --algorithm hbp --repeat 3)"
for isa in portable sse41 avx2 avx512; do
  for threads in 1 2 4 8 16; do
    export OMP_NUM_THREADS=$threads SD_CPU_ISA=$isa
    echo "$isa $threads: tsukuba64 $(median "${tsukuba[@]}" --backend cpu \
      --num-disparities 64 --repeat 15) cones128 $(median "${cones[@]}" \
      --backend cpu --num-disparities 128 --repeat 7) hbp $(median \
      "${tsukuba[@]}" --backend cpu --algorithm hbp --repeat 9)"
  done
done
