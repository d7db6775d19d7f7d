#!/bin/bash
# $1 = plan .cu path, writes lit/<dir>/<base>.ptx
f=$1; d=$(basename $(dirname $f)); b=$(basename $f .cu)
out=lit/$d/$b.ptx
[ -s $out ] && exit 0
"${PTXGEN:-build/ptxgen}" synth --literate-of $f --arch sm_80 > $out.tmp 2>lit/$d/$b.err && mv $out.tmp $out || rm -f $out.tmp
