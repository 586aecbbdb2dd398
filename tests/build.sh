#!/bin/bash
# Configures (once) and builds the project into build/.  CUDA is built when
# nvcc is found (see meson_options.txt); everything else needs only the
# packages of install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  meson setup build "$@"
fi
ninja -C build
