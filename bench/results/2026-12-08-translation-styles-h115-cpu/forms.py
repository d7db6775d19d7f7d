"""The three idioms of issue 28's translation failures (h115), as shares of plans (comments stripped).
Same inputs as h108's forms.py (2026-12-07-translation-h108-cpu/forms.py, whose table this extends):
    python3 forms.py LABEL=GLOB|LABEL=FILE.jsonl|LABEL=LIST.txt ...
A .jsonl is a synth file (its "cuda_c"); --variants FILE.jsonl counts its plan_variant tags."""
import re, sys, json, glob, os, collections

def strip_comments(t):
    t = re.sub(r'/\*.*?\*/', '', t, flags=re.S)
    return re.sub(r'//[^\n]*', '', t)

def loops(t):
    """(header, body) of each for loop: body up to the matching brace, or the one statement"""
    out = []
    for m in re.finditer(r'\bfor\s*\(', t):
        i, d = m.end(), 1
        while i < len(t) and d:
            d += {'(': 1, ')': -1}.get(t[i], 0); i += 1
        hdr = t[m.start():i]
        j = i
        while j < len(t) and t[j] in ' \t\n': j += 1
        if j < len(t) and t[j] == '{':
            k, d = j + 1, 1
            while k < len(t) and d:
                d += {'{': 1, '}': -1}.get(t[k], 0); k += 1
            out.append((hdr, t[j:k]))
        else:
            k = t.find(';', j)
            out.append((hdr, t[j:k + 1]))
    return out

LIT = r'\(?-?[0-9][0-9xXa-fA-FuU]*\)?'
def constant_trip(hdr):
    m = re.match(r'for\s*\(([^;]*);([^;]*);', hdr)
    if not m: return False
    init, cond = m.group(1), m.group(2)
    if not re.search(r'=\s*' + LIT + r'\s*$', init): return False
    return bool(re.search(r'(<=?|>=?|!=)\s*' + LIT + r'\s*$', cond.strip()))

def forms(src):
    t = strip_comments(src)
    f = collections.OrderedDict()
    # 1. derived pointers: T* p = q + off; ... p[...]
    ptrs = re.findall(r'\b(?:const\s+)?[\w:]+\s*\*\s*(?:const\s+)?(?:__restrict__\s+)?(\w+)\s*=\s*\(?\s*(\w+)\s*\+\s*([^;]*);', t)
    idx = [(p, q, off) for p, q, off in ptrs if re.search(r'\b' + p + r'\s*\[', t)]
    f['derived pointer, indexed (T* p = q + off; p[j])'] = bool(idx)
    f['  its offset a product (q + r * n: a row pointer)'] = any('*' in off for _, _, off in idx)
    f['  two or more such pointers'] = len(idx) >= 2
    # 2. unrolled loops
    ls = loops(t)
    f['#pragma unroll (not 1)'] = bool(re.search(r'#\s*pragma\s+unroll(?!\s+1\b)', t))
    ct = [(h, b) for h, b in ls if constant_trip(h) and '__shfl' not in b]
    f['constant-trip loop, no shuffle in it (nvcc unrolls it)'] = bool(ct)
    f['  counting down (k = 6; k >= 0; k--)'] = any(re.search(r'--|-=', h) for h, _ in ct)
    f['  indexing a register array (float v[4])'] = bool(re.search(r'^\s*(?:unsigned\s+int|int|float|double|unsigned)\s+\w+\s*\[\s*\d+\s*\]', t, re.M))
    f['unrolled loop of either kind'] = f['#pragma unroll (not 1)'] or bool(ct)
    f['shuffle loop with 2+ shuffles'] = any(b.count('__shfl') >= 2 for h, b in ls if constant_trip(h))
    # 3. 64-bit index arithmetic
    f['size_t thread index (size_t i = (size_t)blockIdx.x * ...)'] = bool(re.search(r'\b(?:const\s+)?(?:size_t|long\s+long|int64_t|unsigned\s+long\s+long)\s+\w+\s*=\s*\(\s*(?:size_t|long\s+long|int64_t|unsigned\s+long\s+long)\s*\)\s*blockIdx', t))
    f['size_t local variable (any)'] = bool(re.search(r'\b(?:const\s+)?size_t\s+\w+\s*=', t))
    f['size_t local, not the thread index'] = bool(re.search(r'\b(?:const\s+)?size_t\s+\w+\s*=(?!\s*\(\s*size_t\s*\)\s*blockIdx)', t))
    f['(size_t) cast'] = '(size_t)' in t
    f['size_t compare or % (i >= (size_t)a * b, i % n on size_t)'] = bool(re.search(r'\b(?:const\s+)?size_t\s+(\w+)\s*=', t)) and any(
        re.search(r'\b' + v + r'\s*(?:%|>=|<)\s*', t) for v in re.findall(r'\bsize_t\s+(\w+)\s*=', t))
    f['size_t local divided (v / n, v % n)'] = any(re.search(r'\b' + v + r'\s*[/%]\s*\w', t) for v in re.findall(r'\bsize_t\s+(\w+)\s*=', t))
    return f

def table(sets):
    names = list(next(iter(sets.values()))[0].keys()) if sets else []
    out = ['| form | ' + ' | '.join(f'{k} (n={len(v)})' for k, v in sets.items()) + ' |', '|' + '---|' * (len(sets) + 1)]
    for n in names:
        row = [n]
        for k, v in sets.items():
            c = sum(1 for x in v if x[n]); row.append(f'{100.0*c/len(v):.1f}% ({c})' if v else '-')
        out.append('| ' + ' | '.join(row) + ' |')
    return '\n'.join(out)

if __name__ == '__main__':
    sets = collections.OrderedDict()
    args = sys.argv[1:]
    if args and args[0] == '--variants':
        c = collections.Counter()
        for l in open(args[1]):
            d = json.loads(l)
            for tag in (d.get('plan_variant') or '').split('/'): c[tag] += 1
        print(c.most_common()); sys.exit(0)
    for spec in args:
        label, path = spec.split('=', 1)
        fs = []
        if path.endswith('.jsonl') or path.endswith('.partial'):
            for l in open(path):
                d = json.loads(l)
                if d.get('cuda_c'): fs.append(forms(d['cuda_c']))
        elif os.path.isfile(path):
            for p in open(path).read().split(): fs.append(forms(open(p).read()))
        else:
            for p in sorted(glob.glob(path)): fs.append(forms(open(p).read()))
        sets[label] = fs
    print(table(sets))
