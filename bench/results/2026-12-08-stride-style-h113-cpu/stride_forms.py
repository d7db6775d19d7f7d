"""Loop steps of CUDA C plans: the share of plans whose loop steps by a launch-derived quantity, written
inline (`i += gridDim.x * blockDim.x`) or through a named local (`unsigned int stride = gridDim.x *
blockDim.x; ... i += stride`).  Comments stripped.
    python3 stride_forms.py LABEL=GLOB|LABEL=FILE.jsonl ...   (a .jsonl is a synth file: its "cuda_c")
With --idioms: every named-step declaration and inline step, counted by form (numbers as N)."""
import re, sys, json, glob, collections

PURE = re.compile(r'^(\s|\(size_t\)|gridDim\.[xyz]|blockDim\.[xyz]|\d+[uU]?|[-+*/()]|<<|>>)+$')

def strip_comments(t):
    t = re.sub(r'/\*.*?\*/', '', t, flags=re.S)
    return re.sub(r'//[^\n]*', '', t)

def steps(t):
    """the third clause of each for (...) header"""
    out = []
    for m in re.finditer(r'\bfor\s*\(', t):
        i, d, semi, j = m.end(), 1, [], m.end()
        while j < len(t) and d > 0:
            c = t[j]
            if c == '(': d += 1
            elif c == ')': d -= 1
            elif c == ';' and d == 1: semi.append(j)
            j += 1
        if len(semi) == 2: out.append(t[semi[1] + 1:j - 1].strip())
    return out

def launch_expr(e):
    return bool(PURE.match(e)) and ('gridDim' in e or 'blockDim' in e)

def forms(src, idioms=None):
    t = strip_comments(src)
    # named launch quantities: T NAME = E; (or , NAME = E,) with E of gridDim/blockDim and literals only
    named = {}
    for m in re.finditer(r'(?:\b(?:const\s+)?(?:unsigned\s+int|unsigned|int|size_t|long)\s+|,\s*)(\w+)\s*=\s*([^;,{}]+?)\s*[;,]', t):
        if launch_expr(m.group(2)): named[m.group(1)] = m.group(2).strip()
    f = {'stride variable (h108 regex)': bool(re.search(r'\b\w+\s*=\s*(gridDim\.x\s*\*\s*blockDim\.x|blockDim\.x\s*\*\s*gridDim\.x)\s*[;,]', t))}
    inline = step_named = False
    for s in steps(t):
        m = re.match(r'(\w+)\s*\+=\s*(.+)$', s)
        if not m: continue
        e = m.group(2).strip()
        if launch_expr(e):
            inline = True
            if idioms is not None: idioms['inline: v += ' + re.sub(r'\b\d+\b', 'N', e)] += 1
        elif e in named:
            step_named = True
            if idioms is not None: idioms['named: %s = %s' % (e, re.sub(r'\b\d+\b', 'N', named[e]))] += 1
    f['loop step: a named launch quantity'] = step_named
    f['loop step: a launch quantity inline'] = inline
    f['either (the form applies)'] = inline or step_named
    return f

if __name__ == '__main__':
    show = '--idioms' in sys.argv
    sets = collections.OrderedDict()
    for spec in [a for a in sys.argv[1:] if a != '--idioms']:
        label, path = spec.split('=', 1)
        fs, idioms = [], collections.Counter()
        srcs = [json.loads(l).get('cuda_c') for l in open(path)] if path.endswith('.jsonl') else [open(p).read() for p in sorted(glob.glob(path))]
        for s in srcs:
            if s: fs.append(forms(s, idioms))
        sets[label] = (fs, idioms)
    names = list(next(iter(sets.values()))[0][0].keys())
    print('| form | ' + ' | '.join('%s (n=%d)' % (k, len(v[0])) for k, v in sets.items()) + ' |')
    print('|' + '---|' * (len(sets) + 1))
    for n in names:
        row = []
        for k, (v, _) in sets.items():
            c = sum(1 for x in v if x[n])
            row.append('%.1f%% (%d)' % (100.0 * c / len(v), c))
        print('| %s | %s |' % (n, ' | '.join(row)))
    if show:
        for k, (_, idioms) in sets.items():
            print('\n%s:' % k)
            for i, c in idioms.most_common(25): print('  %5d  %s' % (c, i))
