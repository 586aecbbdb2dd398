#!/bin/bash
# Installs the Debian packages the build and the tests need, only those
# missing, through sudo when not root.  Used by both README commands.
set -euo pipefail
packages=(
  gcc libc6-dev pkg-config meson ninja-build python3 libpng-dev
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  valgrind clang libyaml-dev libglib2.0-dev
  # GStreamer's CUDA library (CUDA memory in, with nvcc) and nvcodec, whose
  # cudaupload and nvh264dec the GPU tests feed the element from
  libgstreamer-plugins-bad1.0-dev gstreamer1.0-plugins-bad
)
# libFuzzer's runtime has a versioned name (Debian 12's); where apt has no
# such package the fuzz test reports itself skipped
optional=(libclang-rt-14-dev)
installed () {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}
missing=()
for p in "${packages[@]}" "${optional[@]}"; do
  installed "$p" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
wanted=()
for p in "${missing[@]}"; do
  if [[ " ${optional[*]} " == *" $p "* ]] && ! apt-cache show "$p" \
      >/dev/null 2>&1; then
    continue
  fi
  wanted+=("$p")
done
[ ${#wanted[@]} -eq 0 ] && exit 0
echo "installing: ${wanted[*]}"
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${wanted[@]}"
