#!/usr/bin/env bash
# scripts/setup.sh — everything the first README command needs on a fresh
# Debian/Ubuntu machine: the build dependencies (apt, when missing) and the
# build.  With --with-base also the pretrained bases (models/fetch_base.sh --qwen15:
# Qwen2.5-Coder-1.5B, 1.1 GB, whose adapter models/qwen15-plan is then the default,
# and the 0.5B, 491 MB; fetched, verified by sha256, assembled into models/base/),
# which adapters over a GGUF base (a model folder with base.json) need; the 15M
# models/default, taken without them, does not.  Re-running is a no-op.
#   bash scripts/setup.sh [--with-base]
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
case "${1:-}" in
    --with-base) bash models/fetch_base.sh --qwen15 ;;
    "") ;;
    *) echo "usage: bash scripts/setup.sh [--with-base]" >&2; exit 2 ;;
esac
make -j"$(nproc)" all >/dev/null
echo "setup: built build/ptxgen${1:+; base models in models/base/}"
