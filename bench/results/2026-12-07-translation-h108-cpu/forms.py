"""Surface forms of CUDA C plans: the fraction of plans with each form (regexes, comments stripped).
    python3 forms.py LABEL=GLOB|LABEL=FILE.jsonl|LABEL=LIST.txt ...
A .jsonl is a synth file (its "cuda_c"), a .txt a list of .cu paths, anything else a glob of .cu files."""
import re, sys, json, glob, os, collections

def strip_comments(t):
    t = re.sub(r'/\*.*?\*/', '', t, flags=re.S)
    return re.sub(r'//[^\n]*', '', t)

def forms(src):
    t = strip_comments(src)
    f = {}
    f['#define constant'] = bool(re.search(r'^\s*#\s*define\s+\w+\s+\(?\s*-?[0-9][0-9.xXa-fA-FuUlLf]*\s*\)?\s*$', t, re.M))
    f['#define (any)'] = bool(re.search(r'^\s*#\s*define\b', t, re.M))
    f['__device__ helper'] = bool(re.search(r'__device__[^;{=]*\w+\s*\([^;]*\)\s*\{', t)) 
    f['__device__ reduction helper (shuffles in a helper)'] = any('__shfl' in m for m in re.findall(r'__device__[^{]*\{(.*?)\n\}', t, re.S))
    defs = re.findall(r'^\s*#\s*define\s+(\w+)\s+\(?\s*-?[0-9][0-9.xXa-fA-FuUlLf]*\s*\)?\s*$', t, re.M)
    f['#define constant used in a statement'] = any(re.search(r'\b' + d + r'\b', l) for d in defs for l in t.split('\n') if '#' not in l and '__shared__' not in l)
    f['template'] = bool(re.search(r'\btemplate\s*<', t))
    f['#pragma unroll'] = bool(re.search(r'#\s*pragma\s+unroll', t))
    shared = re.findall(r'__shared__[^;]*?(\w+)\s*\[', t)
    f['__shared__ array'] = bool(shared)
    lines = t.split('\n')
    sl = False
    for i, l in enumerate(lines):
        if re.search(r'\bfor\s*\(', l):
            win = ' '.join(lines[i:i + 3])
            if any(re.search(r'\b' + re.escape(s) + r'\s*\[', win) for s in shared): sl = True
    f['loop over shared memory'] = sl
    f['>1 kernel'] = len(re.findall(r'__global__', t)) > 1
    f['typedef/using'] = bool(re.search(r'\btypedef\b|\busing\s+\w+\s*=', t))
    f['stride variable'] = bool(re.search(r'\b\w+\s*=\s*(gridDim\.x\s*\*\s*blockDim\.x|blockDim\.x\s*\*\s*gridDim\.x)\s*[;,]', t))
    f['pointer alias (T* p = q + off)'] = bool(re.search(r'\b\w+\s*\*\s*(__restrict__\s*)?\w+\s*=\s*\(?\w+\s*\+', t))
    f['float2/4/half2 reinterpret'] = bool(re.search(r'reinterpret_cast<\s*(const\s+)?(float|double|int|__half|half|__nv_bfloat16|ushort|uint)\d?\s*\*', t))
    f['(size_t) cast'] = '(size_t)' in t
    f['if ... else'] = bool(re.search(r'\belse\b', t))
    f['__launch_bounds__'] = '__launch_bounds__' in t
    return f

def table(sets):
    names = list(next(iter(sets.values()))[0].keys()) if sets else []
    hdr = '| form | ' + ' | '.join(f'{k} (n={len(v)})' for k, v in sets.items()) + ' |'
    out = [hdr, '|' + '---|' * (len(sets) + 1)]
    for n in names:
        row = [n]
        for k, v in sets.items():
            c = sum(1 for x in v if x[n]); row.append(f'{100.0*c/len(v):.1f}% ({c})' if v else '-')
        out.append('| ' + ' | '.join(row) + ' |')
    return '\n'.join(out)

if __name__ == '__main__':
    sets = collections.OrderedDict()
    for spec in sys.argv[1:]:
        label, path = spec.split('=', 1)
        fs = []
        if path.endswith('.jsonl') or path.endswith('.partial'):
            for l in open(path):
                d = json.loads(l)
                if d.get('cuda_c'): fs.append(forms(d['cuda_c']))
        elif os.path.isfile(path):   # a list of files
            for p in open(path).read().split():
                fs.append(forms(open(p).read()))
        else:
            for p in sorted(glob.glob(path)):
                fs.append(forms(open(p).read()))
        sets[label] = fs
    print(table(sets))
