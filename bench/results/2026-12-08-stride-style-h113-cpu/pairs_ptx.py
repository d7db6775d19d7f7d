"""The PTX of a plan with and without the stride style.  Takes two synth files of the same arguments,
before and after the style (equal ids are the same task), and for each sample of `after` whose
plan_style has "stride":
  - literate: its "ptx_code" against the before sample's (from the files, no compile);
  - plain: both "cuda_c" compiled here with nvcc -ptx -arch=sm_80 -O3 (the first --plain N pairs),
    and both PTX through ptxas -arch=sm_80 -O3: are the cubins byte-identical?
Comparison tiers, comments stripped, register and label numbers dropped:
  same      the same instruction lines in the same order
  reordered the same lines, another order
  equiv     equal once reads of %ntid/%nctaid are dropped and mul.wide.u32 counts as
            cvt.u64.u32 x2 + mul.lo.s64 (both the product of two u32 as u64)
  other     anything else
    python3 pairs_ptx.py BEFORE.jsonl AFTER.jsonl [--plain N] [--nvcc PATH]"""
import json, re, sys, os, subprocess, tempfile, collections

def instrs(ptx):
    out = []
    for l in ptx.split('\n'):
        l = l.split('//')[0].strip()
        if not l or l.startswith('.reg'): continue
        l = re.sub(r'%([a-z]+)\d+\b', r'%\1', l)
        l = re.sub(r'\$L__BB\d+_\d+', '$L', l)
        out.append(re.sub(r'\s+', ' ', l))
    return out

def equiv(lines):
    out = []
    for s in lines:
        if s.startswith('mov.u32 %r, %ntid.') or s.startswith('mov.u32 %r, %nctaid.'): continue
        if s == 'mul.wide.u32 %rd, %r, %r;': out += ['cvt.u64.u32 %rd, %r;', 'cvt.u64.u32 %rd, %r;', 'mul.lo.s64 %rd, %rd, %rd;']
        else: out.append(s)
    return collections.Counter(out)

def tier(a, b):
    x, y = instrs(a), instrs(b)
    if x == y: return 'same'
    if collections.Counter(x) == collections.Counter(y): return 'reordered'
    if equiv(x) == equiv(y): return 'equiv'
    return 'other'

def main():
    args = sys.argv[1:]
    plain = int(args[args.index('--plain') + 1]) if '--plain' in args else 0
    nvcc = args[args.index('--nvcc') + 1] if '--nvcc' in args else '/usr/local/cuda/bin/nvcc'
    ptxas = os.path.join(os.path.dirname(nvcc), 'ptxas')
    before = {}
    for l in open(args[0]):
        d = json.loads(l); before[d['id']] = d
    lit, pl, cub, fams, rows = collections.Counter(), collections.Counter(), collections.Counter(), collections.Counter(), []
    n = 0
    tmp = tempfile.mkdtemp(prefix='pairs-')
    for l in open(args[1]):
        d = json.loads(l)
        if 'stride' not in d.get('plan_style', ''): continue
        b = before.get(d['id'])
        if not b or b['task'] != d['task'] or b['cuda_c'] == d['cuda_c']:
            lit['unpaired'] += 1; continue
        n += 1
        fams[d['family']] += 1
        t = tier(b['ptx_code'], d['ptx_code'])
        lit[t] += 1
        if t == 'other': rows.append(('literate', d['id'], d['family'], d['task']['kernel']))
        if pl.total() < plain:
            ptx, cubin = [], []
            for k, src in (('b', b['cuda_c']), ('a', d['cuda_c'])):
                cu, px, cb = (os.path.join(tmp, k + e) for e in ('.cu', '.ptx', '.cubin'))
                open(cu, 'w').write(src)
                subprocess.run([nvcc, '-ptx', '-arch=sm_80', '-O3', cu, '-o', px], check=True, capture_output=True)
                subprocess.run([ptxas, '-arch=sm_80', '-O3', px, '-o', cb], check=True, capture_output=True)
                ptx.append(open(px).read()); cubin.append(open(cb, 'rb').read())
            t = tier(ptx[0], ptx[1])
            pl[t] += 1
            cub['identical' if cubin[0] == cubin[1] else 'differ'] += 1
            if t == 'other': rows.append(('plain', d['id'], d['family'], d['task']['kernel']))
    print('pairs (samples with the stride style): %d; families: %s' % (n, dict(fams.most_common())))
    print('literate PTX (the synth files):', dict(lit))
    if plain: print('plain PTX (nvcc -ptx -arch=sm_80 -O3), first %d pairs:' % pl.total(), dict(pl), '; cubins (ptxas -O3):', dict(cub))
    for r in rows: print('  other:', *r)

if __name__ == '__main__':
    main()
