#!/bin/bash
# The cpu backend's ARM build (NEON where fast-vector.h and fast-hbp.c use
# it) against the reference, on an x86 machine: cross-compiled for aarch64
# and run under qemu-user.  Not part of CI (it needs the cross toolchain);
# run it by hand after touching common/fast/.
#   apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
# usage: tests/engine/run-arm64-qemu.sh [--full]
#   runs test-fast-stages and test-cpu-agreement --quick (--full: the
#   agreement's every case but the data sets)
# There is no arm64 libpng or libyaml here, so the image and calibration
# readers are replaced by shims that fail; the tests run read no files.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc=(aarch64-linux-gnu-gcc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -fopenmp
  -I"$root/common" -I"$root/tests/support" -I"$root/cuda")
cat > "$work/shims.c" <<'C'
#include "sd-png.h"
#include "sd-calib.h"
bool sd_png_signature (const uint8_t * b, size_t n)
{ (void) b; (void) n; return false; }
SdImage *sd_png_read (FILE * f, const char *p, char *m, size_t s)
{ (void) f; (void) p; (void) m; (void) s; return NULL; }
bool sd_png_write (const char *p, const SdPlane * pl, char *m, size_t s)
{ (void) p; (void) pl; (void) m; (void) s; return false; }
double sd_stereo_calib_focal_baseline (const SdStereoCalib * c)
{ (void) c; return 0; }
C
cd "$work"
# the sources built once per instruction set, as common/meson.build lists
# them, and every other source of the engine but the shimmed readers
per_isa=$(sed -n '/^sdfast_sources/,/)/p' "$root/common/meson.build" |
  grep -o "fast/[a-z0-9-]*\.c")
once=()
for f in "$root"/common/*.c "$root"/common/cpu/*.c "$root"/common/fast/*.c; do
  case "$f" in
    */sd-png.c | */sd-calib.c) ;;
    *) grep -qx "${f#"$root/common/"}" <<< "$per_isa" || once+=("$f") ;;
  esac
done
for f in $per_isa; do
  "${cc[@]}" -DSD_FAST_ISA=portable -c "$root/common/$f"
done
"${cc[@]}" -DSD_FAST_HAVE_PORTABLE -c "${once[@]}" "$root"/tests/support/*.c \
  shims.c
lib=(*.o)
"${cc[@]}" -static -o test-fast-stages "$root/tests/engine/test-fast-stages.c" \
  "${lib[@]}" -lm
"${cc[@]}" -static -o test-cpu-agreement "$root/tests/cuda/test-cuda-agreement.c" \
  "${lib[@]}" -lm
quick=--quick
[ "${1:-}" = --full ] && quick=
qemu-aarch64 ./test-fast-stages
qemu-aarch64 ./test-cpu-agreement --backend cpu $quick | tail -2
