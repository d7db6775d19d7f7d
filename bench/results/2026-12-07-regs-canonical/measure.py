import json, re, sys, subprocess, os, statistics as st
def load(p): return {json.loads(l)['id']: json.loads(l) for l in open(p)}
a, b = load('p_numbered.jsonl'), load('p_canonical.jsonl')
END = '<|im_end|>'
def ptx(c): return c[:c.rindex(END)] if END in c else c
def firstseen(t):
    body = t[t.index('{'):]
    decl = set(re.findall(r'\.reg \.\w+ (%[a-z]+)<\d+>', body))
    seen = {}
    for base, num in re.findall(r'(%[a-z]+)(\d+)\b', re.sub(r'\.reg [^;]*;', '', body)):
        if base in decl:
            l = seen.setdefault(base, [])
            if int(num) not in l: l.append(int(num))
    return seen
changed = 0; nb = []; cb = []; inorder_new = 0; total_new = 0; in_order_samples = 0
for k in a:
    x, y = ptx(a[k]['completion']), ptx(b[k]['completion'])
    changed += x != y
    nb.append(len(x.encode())); cb.append(len(y.encode()))
    s = firstseen(x); ok = True
    for base, l in s.items():
        total_new += len(l)
        # a new register is predictable when its number is the class's largest so far + 1
        mx = 0
        for n in l:
            inorder_new += n == mx + 1; ok &= n == mx + 1; mx = max(mx, n)
    in_order_samples += ok
print(f"samples {len(a)}; targets changed by renumbering {changed}")
print(f"target bytes: numbered total {sum(nb)} canonical total {sum(cb)} delta {sum(cb)-sum(nb)} ({100*(sum(cb)-sum(nb))/sum(nb):+.2f}%)")
d = [c - n for n, c in zip(nb, cb)]
print(f"per-target delta bytes: min {min(d)} median {st.median(d)} max {max(d)}; mean numbered {st.mean(nb):.0f} B")
print(f"numbered targets: new registers whose number is the class's next (max so far + 1): {inorder_new}/{total_new} = {100*inorder_new/total_new:.1f}%; samples fully in order: {in_order_samples}/{len(a)}")
by = {}
for k in a:
    src = a[k].get('source') or '?'; fam = a[k].get('family') or '?'
    by.setdefault(src, [0, 0]); by[src][0] += 1; by[src][1] += ptx(a[k]['completion']) != ptx(b[k]['completion'])
print("by source (n, changed):", by)
