#!/bin/bash
# Builds the libFuzzer targets with clang (address and undefined-behaviour
# sanitizers) and runs each for a bounded time from its seed corpus in
# tests/fuzz/corpus.  A crash, leak or hang fails the test, and libFuzzer
# leaves the input (crash-*, leak-*, timeout-*) in the work folder, printed
# below: fix it and add it to the corpus as a regression case.
# usage: run-fuzz.sh SECONDS_PER_TARGET   (exit 77 without clang's libFuzzer)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
seconds=${1:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
  -D_POSIX_C_SOURCE=200809L -std=c11 -I"$root/common")
common=("$root/common/sd-image.c" "$root/common/sd-png.c"
  "$root/common/sd-params.c" "$root/common/sd-calib.c"
  "$root/common/sd-message.c")
if ! command -v clang >/dev/null || ! clang "${flags[@]}" -o "$work/probe" \
    "$here/fuzz-params.c" "$root/common/sd-params.c" \
    "$root/common/sd-message.c" 2>"$work/probe.log"; then
  cat "$work/probe.log" 2>/dev/null
  echo "clang with libFuzzer is not here: skipped"
  exit 77
fi
status=0
for target in image params calib; do
  exe=$work/fuzz-$target
  clang "${flags[@]}" -o "$exe" "$here/fuzz-$target.c" "${common[@]}" \
    $(pkg-config --cflags --libs libpng yaml-0.1 glib-2.0) -lm || exit 1
  mkdir -p "$work/$target"
  cp "$here/corpus/$target/"* "$work/$target/"
  # TMPDIR: fuzz-calib's input file goes where the trap removes it
  (cd "$work" && TMPDIR=$work "$exe" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
      "$work/$target" > "$work/$target.log" 2>&1)
  rc=$?
  grep -E "^stat::number_of_executed_units|^stat::new_units_added|ERROR|SUMMARY" \
    "$work/$target.log" | sed "s/^/fuzz-$target: /"
  if [ $rc -ne 0 ]; then
    status=1
    tail -40 "$work/$target.log"
    for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
      [ -e "$f" ] && { echo "input $f:"; od -A d -t x1 "$f" | head -20; }
    done
  fi
done
exit $status
