"""The targets of the styled samples of a synth file (h115): for each sample whose plan_style has
rp, ur or 64, is every plan comment of its literate PTX a line of its own plan (cuda_c), does the
plan have the form, and (64) does the PTX divide in 64 bits?  Prints counts; exit 1 on a miss.
    python3 check_targets.py SYNTH.jsonl"""
import json, re, sys, collections

def norm(s): return re.sub(r'\s+', ' ', s).strip()

def find_style(d):
    if isinstance(d, dict):
        if 'plan_style' in d: return d['plan_style']
        for v in d.values():
            r = find_style(v)
            if r: return r
    return None

c = collections.Counter(); bad = 0
for line in open(sys.argv[1]):
    d = json.loads(line)
    st = find_style(d) or ''
    tags = set(st.split('/'))
    mine = tags & {'rp', 'ur', '64'}
    if not mine: continue
    cu, ptx = d['cuda_c'], d['ptx_code']
    plan = '\n' + '\n'.join(norm(l) for l in cu.split('\n')) + '\n'
    body = ptx[ptx.find('.entry'):]
    coms = [norm(m) for m in re.findall(r'^\s*// (.*)$', body, re.M)]
    ok = all(('\n' + x + '\n') in plan or x in plan for x in coms) and coms
    forms = {'rp': bool(re.search(r'\* (\w+) = \w+ \+ \(size_t\)\w+ \* \w+;', cu)),
             'ur': '#pragma unroll\n' in cu and bool(re.search(r'for \(int \w+ = \d+; \w+ (<|>=) \d+; \w+(\+\+|--)\) ', cu)),
             '64': '= (size_t)blockIdx.x * blockDim.x + threadIdx.x' in cu and bool(re.search(r'\b(div|rem)\.u64\b', ptx))}
    for t in mine:
        c[t] += 1
        c[t + ' ok'] += bool(ok and forms[t])
        if not (ok and forms[t]):
            bad += 1
            print('MISS', t, d.get('id'), 'comments in plan:', bool(ok), 'form:', forms[t])
for t in ('rp', 'ur', '64'):
    print(f'{t}: {c[t]} samples, {c[t + " ok"]} with every comment a line of their plan and the form in plan and PTX')
sys.exit(1 if bad else 0)
