// PTX: dense switch -> brx.idx with .branchtargets, sparse switch -> setp/bra chains, goto, loops with break/continue, selp/slct, setp with all compare ops (eq/ne/lt/le/gt/ge/lo/ls/hi/hs/equ/neu/ltu/leu/gtu/geu/num/nan), predicated bra.uni, ret/exit, __builtin_unreachable/__builtin_assume/__builtin_expect
#include <cuda_runtime.h>

__device__ __noinline__ int dense_switch(int op, int a, int b)
{
    switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / (b | 1);
    case 4: return a % (b | 1);
    case 5: return a << (b & 31);
    case 6: return a >> (b & 31);
    case 7: return a & b;
    case 8: return a | b;
    case 9: return a ^ b;
    case 10: return min(a, b);
    case 11: return max(a, b);
    case 12: return abs(a - b);
    case 13: return __popc(a ^ b);
    case 14: return __clz(a | b);
    case 15: return __brev(a) ^ b;
    default: return -1;
    }
}

__global__ void interpreter(const int* __restrict__ code, const int* __restrict__ data, int* __restrict__ out, int len)
{
    int acc = data[threadIdx.x];
    for (int pc = 0; pc < len; ++pc) {
        int ins = code[pc];
        switch (ins & 0xf) {
        case 0: acc += ins >> 4; break;
        case 1: acc -= ins >> 4; break;
        case 2: acc *= ins >> 4; break;
        case 3: acc ^= ins; break;
        case 4: acc = ~acc; break;
        case 5: acc <<= 1; break;
        case 6: acc >>= 1; break;
        case 7: acc = dense_switch(ins >> 4, acc, pc); break;
        case 8: if (acc < 0) goto done; break;
        case 9: continue;
        case 10: acc = acc * 3 + 1; break;
        case 11: acc = -acc; break;
        case 12: pc += ins >> 8; break;
        default: __builtin_unreachable();
        }
    }
done:
    out[threadIdx.x] = acc;
}

__global__ void sparse_switch(const int* __restrict__ in, int* __restrict__ out)
{
    int v = in[threadIdx.x], r;
    switch (v) {
    case 1: r = 10; break;
    case 100: r = 20; break;
    case 1000: r = 30; break;
    case 65536: r = 40; break;
    case -7: r = 50; break;
    default: r = v;
    }
    out[threadIdx.x] = r;
}

__global__ void compares(const float* __restrict__ f, const int* __restrict__ i, const unsigned* __restrict__ u, const double* __restrict__ d, int* out)
{
    int t = threadIdx.x;
    float a = f[t], b = f[t + 32];
    int x = i[t], y = i[t + 32];
    unsigned p = u[t], q = u[t + 32];
    double c = d[t], e = d[t + 32];
    int r = 0;
    r += (a == b) + 2 * (a != b) + 4 * (a < b) + 8 * (a <= b) + 16 * (a > b) + 32 * (a >= b);
    r += !(a < b) + !(a >= b) * 2 + !(a == b) * 4 + (isnan(a) || isnan(b)) * 8 + (!isnan(a) && !isnan(b)) * 16;
    r += (x < y) + (x <= y) + (x > y) + (x >= y) + (p < q) * 2 + (p <= q) * 3 + (p > q) * 5 + (p >= q) * 7;
    r += (c < e) + (c != e) * 2 + !(c > e) * 4;
    r += (x > 0) ? y : x;
    float sel = (a > 0.f) ? b : a;
    if (__builtin_expect(x == 12345, 0)) r ^= 0x55;
    __builtin_assume(y >= 0);
    r += y / 4;
    out[t] = r + (int)sel;
}

__global__ void asm_predicates(const int* __restrict__ in, int* __restrict__ out)
{
    int v = in[threadIdx.x], r;
    asm("{\n\t.reg .pred p, q, s;\n\t"
        "setp.gt.s32 p, %1, 0;\n\t"
        "setp.lt.and.s32 q, %1, 100, p;\n\t"
        "setp.ne.or.s32 s, %1, 5, q;\n\t"
        "and.pred p, p, q;\n\t"
        "or.pred p, p, s;\n\t"
        "xor.pred q, p, s;\n\t"
        "not.pred s, q;\n\t"
        "selp.s32 %0, 1, 2, s;\n\t"
        "@p add.s32 %0, %0, 4;\n\t"
        "@!q bra.uni LSKIP%=;\n\t"
        "slct.s32.s32 %0, %0, %1, %1;\n\t"
        "LSKIP%=:\n\t"
        "set.lt.u32.s32 %1, %1, %0;\n\t"
        "add.s32 %0, %0, %1;\n\t"
        "}" : "=r"(r), "+r"(v));
    float f;
    asm("{ .reg .pred p; setp.geu.ftz.f32 p, %1, 0f3F800000; @p mov.f32 %0, 0f40000000; @!p mov.f32 %0, 0fBF800000; set.ltu.f32.f32 %0, %0, %1; }" : "=f"(f) : "f"((float)v));
    out[threadIdx.x] = r + (int)f;
}

__global__ void early_exit(const int* __restrict__ in, int* __restrict__ out)
{
    int v = in[threadIdx.x];
    if (v < 0) { asm volatile("exit;"); }
    if (v == 0) return;
    out[threadIdx.x] = v * 2;
}

// nvcc lowers C switch statements to branch trees / lookup tables, never brx.idx; reach it via inline asm.
__global__ void asm_brx_idx(const unsigned* __restrict__ in, unsigned* __restrict__ out)
{
    unsigned v = in[threadIdx.x] & 3, r;
    asm volatile("{\n\t"
                 "BT%=: .branchtargets LA%=, LB%=, LC%=, LD%=;\n\t"
                 "brx.idx %1, BT%=;\n\t"
                 "LA%=: mov.u32 %0, 10; bra.uni LE%=;\n\t"
                 "LB%=: mov.u32 %0, 20; bra.uni LE%=;\n\t"
                 "LC%=: mov.u32 %0, 30; bra.uni LE%=;\n\t"
                 "LD%=: mov.u32 %0, 40;\n\t"
                 "LE%=:\n\t}" : "=r"(r) : "r"(v));
    out[threadIdx.x] = r;
}
