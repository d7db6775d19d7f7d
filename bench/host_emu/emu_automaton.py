"""Host emulation of the automaton family's CUDA C plans (no GPU): compile each dumped
reference.cu (SYNTH_FAMILY_DUMP=DIR ... test_synth_family) with g++ as host code
(cuda_emu.h: one std::thread per CUDA thread, warp barriers for shuffles, a block
barrier for __syncthreads), launch it on small inputs and compare with an
independent computation in this script.  Usage: python3 emu_automaton.py DIR.  Exit 1 on a mismatch."""
import json, os, subprocess, sys, tempfile, re
root = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
TMP = tempfile.mkdtemp(prefix="host_emu_")
ok = bad = 0
for d in sorted(os.listdir(root)):
    t = json.load(open(f"{root}/{d}/task.json"))
    if t["family"] != "automaton": continue
    fp = t["family_params"]
    cu = open(f"{root}/{d}/reference.cu").read()
    name = t["kernel"]
    blk = t["launch"]["block"]
    ct = "unsigned char" if fp["dtype"] == "u8" else "int"
    src = f'''#include <cstdio>
#include <cstdlib>
#include <cstddef>
#include <algorithm>
using std::min; using std::max;
struct D3 {{ int x, y, z; }};
static D3 blockIdx, threadIdx, blockDim;
#define __global__
{cu}
int main() {{
  int sz[][2] = {{{{1,1}},{{3,3}},{{5,7}},{{17,33}},{{2,1}},{{40,9}}}};
  int B = {fp["birth"]}, S = {fp["survive"]}, four = {1 if fp["neighbours"]==4 else 0}, torus = {1 if fp["boundary"]=="torus" else 0};
  srand(7); int bad = 0;
  for (auto &s : sz) {{
    int H = s[0], W = s[1];
    {ct} *in = new {ct}[H*W], *out = new {ct}[H*W];
    for (int i = 0; i < H*W; i++) {{ in[i] = rand() % 2; out[i] = 77; }}
    blockDim.x = {blk[0]}; blockDim.y = {blk[1]}; blockDim.z = 1;
    for (int by = 0; by < (H + {blk[1]} - 1) / {blk[1]}; by++) for (int bx = 0; bx < (W + {blk[0]} - 1) / {blk[0]}; bx++)
      for (int ty = 0; ty < {blk[1]}; ty++) for (int tx = 0; tx < {blk[0]}; tx++) {{
        blockIdx.x = bx; blockIdx.y = by; threadIdx.x = tx; threadIdx.y = ty;
        {name}(in, out, H, W);
      }}
    for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) {{
      int n = 0;
      for (int dy = -1; dy <= 1; dy++) for (int dx = -1; dx <= 1; dx++) {{
        if ((!dy && !dx) || (four && dy && dx)) continue;
        int yy = y + dy, xx = x + dx;
        if (torus) {{ yy = (yy + H) % H; xx = (xx + W) % W; }}
        else if (yy < 0 || yy >= H || xx < 0 || xx >= W) continue;
        n += in[yy * W + xx];
      }}
      int want = ((in[y*W+x] ? S : B) >> n) & 1;
      if (out[y*W+x] != want) bad++;
    }}
  }}
  printf("%s %d\\n", bad ? "BAD" : "OK", bad);
  return bad != 0;
}}
'''
    open(f"{TMP}/k.cpp","w").write(src)
    r = subprocess.run(["g++","-std=c++17","-w","-o",f"{TMP}/k",f"{TMP}/k.cpp"],capture_output=True,text=True)
    if r.returncode: print(d, "COMPILE", r.stderr[:800]); bad += 1; continue
    r = subprocess.run([f"{TMP}/k"],capture_output=True,text=True)
    print(d, fp["rule"], fp["boundary"], fp["neighbours"], fp["style"], r.stdout.strip())
    ok += r.returncode == 0; bad += r.returncode != 0
print("ok", ok, "bad", bad)
sys.exit(1 if bad else 0)
