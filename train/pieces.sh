#!/usr/bin/env bash
# train/pieces.sh — pack the large inputs of train/steps/base.sh (the base GGUFs,
# their tokenizer files, the gguf wheel) into one tar split into pieces small enough
# to travel one per device call, with a MANIFEST of sha256 sums.
#   bash train/pieces.sh OUTDIR QWEN.gguf SMOL.gguf QWEN_TOK_DIR SMOL_TOK_DIR WHEEL...
# SMOL.gguf and SMOL_TOK_DIR may be "-" (a Qwen-only bundle: two pieces fewer).
# Then per call: put one piece and OUTDIR/MANIFEST into .carry/ and run
# `bash train/steps/base.sh put` with carry [".carry"].
# Environment: PIECE_MB (54) the pieces' size; FIRST_MB (default PIECE_MB) the first piece's, smaller
# when the first call also carries the binaries; NAME (qwen) what the Qwen GGUF and its tokenizer
# are called in the bundle (NAME.gguf, NAME-tok/: qwen15 for the 1.5B, so the device keeps the two apart).
set -euo pipefail
out=$1 qwen=$2 smol=$3 qtok=$4 stok=$5; shift 5
size=${PIECE_MB:-54}
first=${FIRST_MB:-$size}
name=${NAME:-qwen}
mkdir -p "$out"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
ln -s "$(realpath "$qwen")" "$stage/$name.gguf"
[ "$smol" = - ] || ln -s "$(realpath "$smol")" "$stage/smol.gguf"
cp -r "$qtok" "$stage/$name-tok"
[ "$stok" = - ] || cp -r "$stok" "$stage/smol-tok"
for w in "$@"; do cp "$w" "$stage/"; done
(cd "$stage" && sha256sum ./*.gguf ./*.whl ./*-tok/* > SHA256SUMS)
tar -chf "$out/bundle.tar" -C "$stage" .
rm -f "$out"/piece.*
# piece.00 of FIRST_MB, then pieces of PIECE_MB numbered on from 01 (assemble joins them in `sort -V` order)
head -c "$((first * 1048576))" "$out/bundle.tar" > "$out/piece.00"
tail -c +"$((first * 1048576 + 1))" "$out/bundle.tar" | split -b "${size}M" -d -a 2 --numeric-suffixes=1 - "$out/piece."
[ -s "$out/piece.01" ] || rm -f "$out/piece.01"
(cd "$out" && sha256sum bundle.tar piece.* > MANIFEST)
rm -f "$out/bundle.tar"
ls -la "$out"
