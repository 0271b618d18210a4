#!/usr/bin/env bash
# Installs every package cfs-verify needs, from Debian bookworm, as root.
set -euo pipefail
pkgs=(cmake ninja-build g++ clang-14 libclang-rt-14-dev pkg-config
      libgtest-dev libgmock-dev librapidcheck-dev libz3-dev z3 libbenchmark-dev
      python3 python3-yaml python3-jsonschema)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
