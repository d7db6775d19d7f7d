#!/usr/bin/env bash
# readme_examples.sh — the documentation's shell examples run as a user pastes them.
#
#   bash tests/readme_examples.sh [FILE.md ...]
#
# Every fenced block whose language is sh, bash or shell in README.md, and in every
# docs/*.md that carries the marker line
#     <!-- examples: tested -->
# runs in a fresh temporary clone of this checkout: its tracked files (those in git's
# index) as they are in the working tree, so a just-edited README is what is tested,
# and nothing the examples left in the checkout (an out/ folder, a .cu file) helps them;
# a file an example needs must be in the repository (git add it).  The blocks of one file
# run in order in one shell, as in one terminal (a `cd` or an `export` carries over);
# each file gets its own clone.  A command (one line, or the lines a `\`, a quote or
# a `do ... done` holds together) passes when it exits 0, or N when its line ends
# with the comment `# exit N`.  Nothing is downloaded or installed on the machine:
#  - the clone gets a copy of the checkout's build/ (same sources, same times: the
#    set-up's `make` finds it up to date, it is checked and not redone);
#  - models/base (the 491 MB pretrained base, git-ignored) is never there, even when the
#    checkout has it, so `gen` without --model takes the 15M models/default on every
#    machine (with the base it would take models/qwen-plan: minutes on 2 cores) and
#    nothing is downloaded: `scripts/setup.sh --with-base` runs as `scripts/setup.sh`
#    (its verdict says so), and any other command that names models/base or
#    fetch_base.sh is skipped, and says so;
#  - `pip` and `python3` are those of a virtual environment over the system's
#    packages (pip offline, no build isolation), so `pip install -e` installs there;
#  - apt-get and sudo are stand-ins that refuse (a set-up that would install system
#    packages is skipped and says so), and so are ptxgen and ptxgen-nvcc on PATH: a new
#    user has none there until the set-up puts build/ on PATH.
# Skipped, and said so: a command that exits 3 (ptxgen: "needs a GPU") on a machine
# without a GPU; `make test`/`make check` (the suite running this); a block right
# after a line `<!-- example: skip -- REASON -->` (e.g. a 15-minute training run).
# Ends with "N passed, N failed"; a failing example prints its command, exit status
# and the end of its output.  PTXGEN_EXAMPLES_TIMEOUT (s, default 1200) bounds each file.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${PTXGEN_BUILD:-build}
pass=0 fail=0 skip=0
T=$(mktemp -d "${TMPDIR:-/tmp}/ptxgen-examples-XXXXXX")
trap 'rm -rf "$T"' EXIT

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
    files=(README.md)
    for d in docs/*.md; do grep -qx '<!-- examples: tested -->' "$d" && files+=("$d"); done
fi

# GPU present?  (ptxgen's own answer: devinfo exits 3 without one)
HAVE_GPU=0
"$BUILD/ptxgen" devinfo >/dev/null 2>&1 && HAVE_GPU=1

# ---- stand-ins and the Python environment, shared by every clone ----
mkdir -p "$T/bin"
for tool in apt-get apt sudo; do
    printf '#!/bin/sh\necho "readme test: refusing to run %s $*: a test installs nothing on this machine" >&2\nexit 97\n' \
        "$tool" >"$T/bin/$tool"
    chmod +x "$T/bin/$tool"
done
# a new user has no ptxgen on PATH, whatever this machine has installed: an example that
# calls it bare must put build/ on PATH first (then that one comes before this stand-in)
for tool in ptxgen ptxgen-nvcc; do
    printf '#!/bin/sh\necho "readme test: %s is not on a new user'"'"'s PATH: call build/%s, or put build/ on PATH in the set-up" >&2\nexit 127\n' \
        "$tool" "$tool" >"$T/bin/$tool"
    chmod +x "$T/bin/$tool"
done
VENV=
venv() {   # a virtual environment over the system's packages, made on first use
    [ -n "$VENV" ] && return 0
    VENV=$T/venv
    python3 -m venv --system-site-packages --without-pip "$VENV" >"$T/venv.log" 2>&1 || { VENV=; return 1; }
    for p in pip pip3; do printf '#!/bin/sh\nexec "%s/bin/python3" -m pip "$@"\n' "$VENV" >"$VENV/bin/$p"; chmod +x "$VENV/bin/$p"; done
}

# ---- a fresh clone: the tracked files as in the working tree and the build (no models/base) ----
make_clone() {
    local dst=$1
    mkdir -p "$dst"
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files -z -c | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
            tar --null -T - -cf - | tar -xf - -C "$dst"
    else   # an unpacked release: everything but build outputs and the base
        tar --exclude=./build --exclude=./models/base -cf - . | tar -xf - -C "$dst"
    fi
    mkdir -p "$dst/build"
    for f in ptxgen ptxgen-nvcc libptxgen.a libptxgen.so obj pic; do
        [ -e "$BUILD/$f" ] || [ -L "$BUILD/$f" ] && cp -a "$BUILD/$f" "$dst/build/"
    done
    return 0
}

# ---- the commands of a file: one file per command, and a list ----
# list line: LINE<TAB>ACTION<TAB>WANT<TAB>CMDFILE<TAB>NOTE   (ACTION run|skip)
extract() {
    local md=$1 out=$2
    : >"$out/list"
    local n=0 inblock=0 indent="" lang="" skipnext="" skipreason="" line lno=0 buf="" start=0 blockskip=""
    while IFS= read -r line || [ -n "$line" ]; do
        lno=$((lno + 1))
        if [ "$inblock" = 0 ]; then
            if [[ "$line" =~ ^[[:space:]]*\<\!--[[:space:]]*example:[[:space:]]*skip[[:space:]]*(--)?[[:space:]]*(.*[^[:space:]])[[:space:]]*--\>[[:space:]]*$ ]]; then
                skipnext=1
                skipreason=${BASH_REMATCH[2]}
                continue
            fi
            if [[ "$line" =~ ^([[:space:]]*)(\`\`\`+)[[:space:]]*([A-Za-z]*) ]]; then
                indent=${BASH_REMATCH[1]}
                lang=${BASH_REMATCH[3]}
                inblock=1
                blockskip=""
                case "$lang" in sh|bash|shell) blockskip=${skipnext:+skip} ;; *) blockskip=other ;; esac
                [ -n "$skipnext" ] && [ "$blockskip" = skip ] && printf '%s\tskip\t-\t-\tblock: %s\n' "$lno" "$skipreason" >>"$out/list"
                skipnext=""
                buf="" start=0
                continue
            fi
            [[ "$line" =~ ^[[:space:]]*$ ]] || skipnext=""
            continue
        fi
        # inside a block
        if [[ "$line" =~ ^[[:space:]]*\`\`\` ]]; then
            inblock=0
            if [ -n "$buf" ] && [ -z "$blockskip" ]; then   # an unfinished command at the block's end
                n=$((n + 1)); printf '%s' "$buf" >"$out/c$n.sh"
                printf '%s\trun\t0\t%s\t%s\n' "$start" "$out/c$n.sh" "" >>"$out/list"
            fi
            continue
        fi
        [ -n "$blockskip" ] && continue
        line=${line#"$indent"}
        if [ -z "$buf" ]; then
            [[ "$line" =~ ^[[:space:]]*(#.*)?$ ]] && continue
            start=$lno
            buf=$line
        else
            buf=$buf$'\n'$line
        fi
        # complete when bash parses it and it does not end with a continuation backslash
        if [[ "$buf" != *\\ ]] && bash -n <<<"$buf" 2>/dev/null; then
            n=$((n + 1))
            printf '%s\n' "$buf" >"$out/c$n.sh"
            local want=0 last=${buf##*$'\n'}
            [[ "$last" =~ \#[[:space:]]*exit[[:space:]]+([0-9]+)([^0-9]|$) ]] && want=${BASH_REMATCH[1]}
            printf '%s\trun\t%s\t%s\t%s\n' "$start" "$want" "$out/c$n.sh" "" >>"$out/list"
            buf=""
        fi
    done <"$md"
}

# Why a command is not run here ("" = run it).
skip_reason() {
    local cmd=$1
    if [[ "$cmd" =~ (^|[^[:alnum:]_/.-])make([[:space:]]+-[^[:space:]]+)*[[:space:]]+(test|check)([[:space:]]|$|\;|\&|\|) ]]; then
        echo "the test suite itself (make check runs this file; make test runs everything)"
    elif [[ "${cmd//scripts\/setup.sh --with-base/}" =~ models/base|fetch_base\.sh|--with-base ]]; then
        echo "needs the pretrained base in models/base, which a test clone never has (it would download 491 MB, and gen would leave the 15M model)"
    fi
}

short() { local c=${1//$'\n'/ ⏎ }; [ ${#c} -gt 110 ] && c="${c:0:107}..."; printf '%s' "$c"; }

for md in "${files[@]}"; do
    case "$md" in /*) mdpath=$md ;; *) mdpath=$ROOT/$md ;; esac
    if [ ! -f "$mdpath" ]; then echo "FAIL: $md: no such file"; fail=$((fail + 1)); continue; fi
    name=${md#"$ROOT/"}
    work=$T/$(echo "$name" | tr '/.' '__')
    mkdir -p "$work/cmds"
    extract "$mdpath" "$work/cmds"
    echo "== $name: $(grep -c $'\trun\t' "$work/cmds/list") commands (fresh clone)"
    make_clone "$work/clone"
    # the driver: every command sourced in order in one shell; its exit status and output kept
    drv=$work/driver.sh
    {
        echo 'cd "$1" || exit 90'
        echo 'unset PTXGEN_MODEL PTXGEN_BIN PTXGEN_LIB'
    } >"$drv"
    uses_pip=0
    while IFS=$'\t' read -r lno action want cfile note; do
        [ "$action" = run ] || continue
        cmd=$(cat "$cfile")
        why=$(cd "$work/clone" && skip_reason "$cmd")
        if [ -n "$why" ]; then echo "skip: $why" >"$cfile.skip"; continue; fi
        if [[ "$cmd" == *"scripts/setup.sh --with-base"* ]]; then   # the set-up without the download (see the top)
            printf '%s\n' "${cmd//scripts\/setup.sh --with-base/scripts/setup.sh}" >"$cfile"
            echo "ran without --with-base: no download" >"$cfile.note"
        fi
        [[ "$cmd" =~ (^|[^[:alnum:]_])pip3?[[:space:]] ]] && uses_pip=1
        printf 'source %q >%q 2>&1 </dev/null; echo $? >%q\n' "$cfile" "$cfile.out" "$cfile.rc" >>"$drv"
    done <"$work/cmds/list"
    path="$T/bin:$PATH"
    if [ "$uses_pip" = 1 ]; then
        if venv; then path="$VENV/bin:$path"; else echo "   (no virtual environment: $(tail -n 1 "$T/venv.log"); pip commands will fail)"; fi
    fi
    PATH=$path PIP_NO_INDEX=1 PIP_NO_BUILD_ISOLATION=0 PIP_DISABLE_PIP_VERSION_CHECK=1 \
        timeout "${PTXGEN_EXAMPLES_TIMEOUT:-1200}" bash "$drv" "$work/clone" >"$work/driver.log" 2>&1
    drc=$?
    [ "$drc" = 124 ] && echo "   the examples of $name did not finish within ${PTXGEN_EXAMPLES_TIMEOUT:-1200} s"
    # the verdicts
    while IFS=$'\t' read -r lno action want cfile note; do
        if [ "$action" = skip ]; then
            echo "  SKIP  $name:$lno  ${note}"
            skip=$((skip + 1))
            continue
        fi
        cmd=$(cat "$cfile")
        if [ -f "$cfile.skip" ]; then
            echo "  SKIP  $name:$lno  $(short "$cmd")  ($(sed 's/^skip: //' "$cfile.skip"))"
            skip=$((skip + 1))
            continue
        fi
        if [ ! -f "$cfile.rc" ]; then
            echo "  FAIL  $name:$lno  $(short "$cmd")  (not run: an earlier command ended the shell or the time ran out)"
            fail=$((fail + 1))
            continue
        fi
        rc=$(cat "$cfile.rc")
        if [ "$rc" = "$want" ]; then
            note=""
            [ -f "$cfile.note" ] && note="  ($(cat "$cfile.note")$(grep -m1 -oE '\), model [^,]+' "$cfile.out" | sed 's/^), /; gen: /'))"
            echo "  ok    $name:$lno  $(short "$cmd")$note"
            pass=$((pass + 1))
        elif [ "$rc" = 3 ] && [ "$HAVE_GPU" = 0 ]; then
            echo "  SKIP  $name:$lno  $(short "$cmd")  (needs a GPU: exit 3 on this machine)"
            skip=$((skip + 1))
        elif [ "$rc" = 97 ] && grep -q '^readme test: refusing to run' "$cfile.out"; then
            echo "  SKIP  $name:$lno  $(short "$cmd")  (would install system packages: $(grep -m1 '^readme test: refusing' "$cfile.out" | sed 's/^readme test: refusing to run //'))"
            skip=$((skip + 1))
        else
            echo "  FAIL  $name:$lno  $(short "$cmd")  (exit $rc, want $want); its output ends:"
            tail -n 15 "$cfile.out" | sed 's/^/        /'
            fail=$((fail + 1))
        fi
    done <"$work/cmds/list"
    rm -rf "$work/clone"
done
echo "($skip skipped, each said why above)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
