import dev,json,collections,os,sys
def rows(evalf, kdir, ldir):
    for r in json.load(open(evalf))['rows']:
        key=f"{r['task']}.{r['description']}.{r['config']}.{r['sample']}"
        lp=f'lit/{ldir}/{key}.ptx'; kp=f'gen-plan/{kdir}/{key}.ptx'
        if not os.path.exists(kp): continue
        yield r,key,(lp if os.path.exists(lp) and os.path.getsize(lp) else None),kp
def compare(lp,kp):
    ref=dev.Prog(open(lp).read()); gen=dev.Prog(open(kp).read())
    rh=collections.Counter(p['hash'] for p in ref.instrs if p['hash']); gh=collections.Counter(p['hash'] for p in gen.instrs if p['hash'])
    rs=collections.Counter(p['hash'] for p in ref.instrs if dev.is_sink(p)); gs=collections.Counter(p['hash'] for p in gen.instrs if dev.is_sink(p))
    return ref,gen,sum((rh&gh).values())/max(1,sum(rh.values())), (sum((rs&gs).values()),sum(rs.values()))
if __name__=='__main__':
    for r,key,lp,kp in rows(sys.argv[1],sys.argv[2],sys.argv[3]):
        if not lp: continue
        ref,gen,rec,s=compare(lp,kp)
        print(r['last_stage'][:5], key[:55].ljust(55), 'recall %.2f'%rec, 'sinks %d/%d'%s, 'undef',len(gen.undef_reads), len(ref.undef_reads))
