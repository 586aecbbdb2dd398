#!/bin/bash
# sd-bench's file output, decoded by an independent scorer, scores what
# sd-bench printed.  args: sd-bench, data folder, scorer.
set -euo pipefail
bench=$1 data=$2 scorer=$3
[ -d "$data" ] || { echo "no stereo data folder: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for set in mb2001_tsukuba mb2003_cones_quarter; do
  printed=$("$bench" --set "$data/$set" --fill-holes on --out "$tmp/d.pgm" \
    | sed -n 's/.*bad>1 \([0-9.]*\) %, bad>2.*/\1/p')
  scored=$(python3 "$scorer" "$tmp/d.pgm" "$data/$set" \
    | sed -n 's/bad>1 \([0-9.]*\) %.*/\1/p')
  echo "$set: sd-bench bad>1 $printed %, independent scorer $scored %"
  [ -n "$printed" ] && [ "$printed" = "$scored" ] || { echo "MISMATCH"; exit 1; }
done
