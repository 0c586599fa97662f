#!/usr/bin/env bash
# Installs the Debian packages Cnuas needs, only those that are missing.
set -euo pipefail
packages=(cmake g++ make pkg-config libsystemc-dev libyaml-cpp-dev libboost-program-options-dev
          libgtest-dev libfmt-dev nlohmann-json3-dev libzstd-dev liblz4-dev libxxhash-dev gtkwave
          chromium)  # chromium: the tests render the SVG pictures in it (they skip without it)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]})) || exit 0
echo "installing: ${missing[*]}"
sudo_cmd=""
[[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
$sudo_cmd apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
