#!/bin/bash
# The sweep the defaults were chosen by runs, and on the Middlebury sets it
# ranks the shipped defaults above the ones they replaced (P1 24, P2 48,
# uniqueness 25, lr-check 1).  args: sweep script, sd-sweep, data folder.
set -euo pipefail
script=$1 sweep=$2 data=$3
[ -d "$data" ] || { echo "no stereo data folder: skipped"; exit 77; }
out=$(python3 "$script" --sweep "$sweep" --data "$data" -j 2 --detail 0 \
  --candidate "" --candidate "--p1 24 --p2 48 --uniqueness 25 --lr-check 1")
echo "$out"
first=$(sed -n 3p <<< "$out")
[[ $first == *"(defaults)"* ]] || { echo "the defaults are not ranked first"; exit 1; }
