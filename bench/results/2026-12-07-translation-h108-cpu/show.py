"""Side by side, block by block: nvcc's literate PTX of a plan (the target) and the model's PTX.
    python3 show.py TASK SUITE_DIR TARGET.ptx GEN_DIR
TARGET: `ptxgen synth --literate-of SUITE_DIR/TASK/reference.cu --arch sm_80 | ptxgen fmt --renumber-regs /dev/stdin`
GEN_DIR: round 13's gen-plan/trans (gen.tgz)."""
import sys, glob
task, suite, tgt_path, gen_dir = sys.argv[1:5]
ref = open(f'{suite}/{task}/reference.cu').read()
tgt = open(tgt_path).read()
gen = open(glob.glob(f'{gen_dir}/{task}.*.ptx')[0]).read()
print("=== reference.cu"); print(ref)
def blocks(ptx):
    out=[];cur=None
    for l in ptx.splitlines():
        s=l.strip()
        if s.startswith('//') and not s.startswith('// GEN'): cur=[s,[]];out.append(cur)
        elif cur is not None and s and s!='}': cur[1].append(s)
    return out
T=blocks(tgt);G=blocks(gen)
import itertools
print("=== target | model (block by block, in order)")
n=max(len(T),len(G))
for i in range(n):
    t=T[i] if i<len(T) else ['',[]]; g=G[i] if i<len(G) else ['',[]]
    mark = '' if t[0]==g[0] else '  <<< COMMENT DIFFERS'
    print(f"--T {t[0]}{mark}"); 
    if t[0]!=g[0]: print(f"--G {g[0]}")
    for a,b in itertools.zip_longest(t[1],g[1],fillvalue=''):
        print(f"   {a:<55} | {b}")
