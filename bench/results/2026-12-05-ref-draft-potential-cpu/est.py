# usage (from the repository root): python3 est.py GEN_DIR/trans N | python3 est.py --e2e GEN_DIR/e2e N
import glob,os,subprocess,sys,json
E2E = sys.argv[1] == '--e2e'
if E2E: del sys.argv[1]
from tokenizers import Tokenizer
tk=Tokenizer.from_file('/tmp/qwen-hf/tokenizer.json')
def enc(s): return tk.encode(s, add_special_tokens=False).ids
def nxt(ref, h, j, nmax=8, nmin=2):
    # longest suffix of h[:j] found in ref; return the token after it
    best=0; at=-1
    last=h[j-1]
    for i in range(len(ref)-1):
        if ref[i]!=last: continue
        L=1
        while L<nmax and i-L>=0 and j-1-L>=0 and ref[i-L]==h[j-1-L]: L+=1
        if L>best: best=L; at=i
        if L==nmax: break
    return ref[at+1] if best>=nmin else None
tot=hr=hh=hu=0; per=[]
for f in sorted(glob.glob(sys.argv[1]+'/*.ptx'))[:int(sys.argv[2])]:
    task=os.path.basename(f).split('.')[0]
    ref=None
    if E2E:   # the model's own plan, beside the kernels (generate2's plan/ folder)
        p=f.replace('/e2e/','/plan/')[:-4]+'.cu'
        ref=p if os.path.exists(p) else None
    else:     # translation: the task's reference.cu is the plan
        for s in ('suite','suite-prose'):
            p=f'bench/{s}/{task}/reference.cu'
            if os.path.exists(p): ref=p; break
    if not ref: continue
    r=subprocess.run(['/tmp/refdraft/lit',ref,'sm_80'],capture_output=True,text=True,cwd='.')
    if r.returncode: continue
    out=open(f).read(); body=out[out.index('{'):] if '{' in out else out
    rb=r.stdout
    if '{' not in rb: continue
    rb=rb[rb.index('{'):]
    R=enc(rb); O=enc(body)
    a=b=u=0
    for j in range(2,len(O)):
        pr=nxt(R,O,j); ph=nxt(O[:j],O,j)   # history: the output so far
        cr = pr==O[j]; ch = ph==O[j]
        a+=cr; b+=ch; u+= cr or ch
    n=len(O)-2; tot+=n; hr+=a; hh+=b; hu+=u
    per.append((task,n,round(a/n,2),round(b/n,2),round(u/n,2)))
print(json.dumps({"kernels":len(per),"tokens":tot,"ref_hit":round(hr/tot,3),"history_hit":round(hh/tot,3),"either":round(hu/tot,3)}))
for p in per[:10]: print(p)
