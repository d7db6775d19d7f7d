#!/usr/bin/env bash
# scripts/setup.sh — everything the first README command needs on a fresh
# Debian/Ubuntu machine: the build dependencies (apt, when missing), the
# pretrained base model (models/fetch_base.sh: fetched, verified by sha256,
# assembled into models/base/), and the build.  Re-running is a no-op.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
for pkg in build-essential libjansson-dev libpcre2-dev python3-pip; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
    echo "setup: installing ${need[*]}"
    SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
bash models/fetch_base.sh
make -j"$(nproc)" all >/dev/null
echo "setup: built build/ptxgen; base model in models/base/"
