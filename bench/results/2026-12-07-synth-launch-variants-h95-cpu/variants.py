"""Per family / launch variant counts of a synth JSONL (issue 28, helper h95).
usage: variants.py BASE.jsonl NEW.jsonl -> a Markdown table of counts, base vs new."""
import json, re, sys, collections

def variants(path):
    fam = collections.Counter(); var = collections.Counter()
    for line in open(path):
        r = json.loads(line); t = r['task']; f = r['family']; fam[f] += 1
        la = t.get('launch', {}); blk = la.get('block', ['?']); grid = la.get('grid', ['?'])
        cu = r.get('cuda_c') or ''; fp = t.get('family_params', {})
        m = re.match(r'min\(cdiv\(([^,]+),(\d+)\),(\d+)\)$', grid[0]) if len(grid) == 1 else None
        if m:
            B, D = int(blk[0]), int(m.group(2))
            if f == 'reduce_all':
                E = int(re.search(r'for \(int k = 0; k < (\d+)', cu).group(1)) if 'for (int k = 0; k <' in cu else 1
                V = int(re.search(r'nv = n / (\d+)', cu).group(1)) if 'nv = n / ' in cu else 1
                var[(f, 'grid divisor = %d x step' % (D // (B * E * V)))] += 1
            elif f == 'histogram':
                var[(f, 'grid divisor = %d x block%s' % (D // B, ' (uchar4)' if 'uchar4' in cu else ''))] += 1
            elif f == 'map':
                tile = fp['block'] * fp['vec'] * fp['unroll']
                var[(f, 'grid divisor = %d x tile (step)' % (D // tile))] += 1
            else:
                mv = re.search(r't \* (\d+) <', cu); V = int(mv.group(1)) if mv else 1
                var[(f, 'grid-stride, divisor = %d x block*V' % (D // (B * V)))] += 1
            if f in ('reduce_all', 'histogram'):
                var[(f, 'step written with blockDim.x' if 'gridDim.x * blockDim.x' in cu else 'step written with the block literal')] += 1
        elif f not in ('nbody',):
            var[(f, 'one step per thread (grid covers n)')] += 1
        if f == 'reduce_all' and fp.get('op') in ('max', 'min', 'absmax'):
            if 'atomicCAS' in cu: c = 'atomicCAS loop'
            elif 'atomicMin((unsigned int*)' in cu or 'atomicMax((unsigned int*)' in cu: c = 'sign-split int/uint atomicMax+Min on the bits'
            elif 'atomicMax((int*)' in cu or 'atomicMax((long long*)' in cu: c = 'signed atomicMax on the bits of a value >= 0'
            else: c = 'OTHER'
            var[(f, '%s %s: %s' % (fp['op'], fp['dtype'], c))] += 1
            if re.search(r'atomicM(ax|in)\((?!\((int|unsigned int|long long)\*\))(?!addr)', cu): var[(f, 'FLOAT atomicMax/Min (wrong)')] += 1
            for st, d in t['descriptions'].items():
                if st != 'frames' and 'atomic add' in d: var[(f, 'max/min description says "atomic add"')] += 1
        if f == 'nbody':
            var[(f, 'layout %s' % fp.get('layout'))] += 1
            if fp.get('layout') == 'aos3': var[(f, 'layout aos3, op %s' % fp.get('op'))] += 1
    return fam, var

fb, vb = variants(sys.argv[1]); fn, vn = variants(sys.argv[2])
print('| family | base | new |\n|---|---:|---:|')
for k in sorted(set(fb) | set(fn)): print('| %s | %d | %d |' % (k, fb[k], fn[k]))
print('\n| family | variant | base | new |\n|---|---|---:|---:|')
def key(k):
    return [int(x) if x.isdigit() else x for x in re.split(r'(\d+)', ' '.join(k))]
for k in sorted(set(vb) | set(vn), key=key): print('| %s | %s | %d | %d |' % (k[0], k[1], vb[k], vn[k]))
