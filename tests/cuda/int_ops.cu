// PTX: integer ops: mul.hi, mul.wide, mad.wide, mad.lo, popc, clz, brev, bfind, prmt, shf.l/r(.wrap/.clamp), dp4a, dp2a, sad, video SIMD (__vadd4...), div/rem s32/u32/s64/u64, min/max/abs
#include <cuda_runtime.h>

__global__ void int_intrinsics(const int* __restrict__ a, const unsigned* __restrict__ b, const long long* __restrict__ c,
                               int* __restrict__ out32, unsigned long long* __restrict__ out64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i];
    unsigned y = b[i];
    long long z = c[i];
    int r = __mulhi(x, (int)y) + (int)__umulhi(y, 7u) + __popc(y) + __popcll(z) + __clz(x) + __clzll(z);
    r += (int)__brev(y) + __ffs(x) + __ffsll(z) + __byte_perm(x, (int)y, 0x5140);
    r += (int)__funnelshift_l(y, (unsigned)x, 5) + (int)__funnelshift_r(y, (unsigned)x, 7);
    r += (int)__funnelshift_lc(y, (unsigned)x, y) + (int)__funnelshift_rc(y, (unsigned)x, y);
    r += __dp4a(x, (int)y, r) + (int)__dp4a(y, (unsigned)x, 3u) + __dp2a_lo(x, (int)y, 1) + __dp2a_hi(x, (int)y, 2);
    r += (int)__vadd2(y, (unsigned)x) + (int)__vadd4(y, (unsigned)x) + (int)__vsub4(y, 3u) + (int)__vabsdiffu4(y, (unsigned)x);
    r += (int)__vcmpeq4(y, (unsigned)x) + (int)__vmaxu4(y, (unsigned)x) + (int)__vavgu4(y, (unsigned)x) + (int)__vsads4(y, (unsigned)x);
    r += (int)__sad(x, r, 3u) + (int)__usad(y, 5u, 2u) + __hadd(x, r) + __rhadd(x, r) + (int)__uhadd(y, 9u) + __mul24(x, r) + (int)__umul24(y, 3u);
    r += max(x, r) + min(x, (int)y) + abs(x) + (int)umin(y, 4u);
    r += x / (r | 1) + x % 13 + (int)(y / 7u) + (int)(y % (y | 1u));
#if __CUDA_ARCH__ >= 900
    r += __vimax3_s32(x, r, (int)y) + __vimin3_s32(x, r, (int)y) + __viaddmax_s32(x, r, 5) + __vibmax_s32(x, r, (bool*)&out32[n]);
    r += (int)__vimax_s16x2_relu(y, (unsigned)x) + (int)__viaddmin_u32(y, 3u, (unsigned)x);
#endif
    long long w = (long long)x * (long long)r + z;     // mad.wide.s32
    unsigned long long uw = (unsigned long long)y * 12345u;  // mul.wide.u32
    w += __mul64hi(z, w) + (long long)__umul64hi((unsigned long long)z, uw);
    w += z / (w | 1) + z % 1000003 + llabs(z) + llmin(z, w) + (long long)ullmax(uw, 7ull);
    w += (long long)(uw / ((unsigned long long)w | 1ull)) + (long long)(uw % 97ull);
    w += (w << (x & 63)) + (w >> (r & 63)) + (long long)(uw >> (y & 63));
    out32[i] = r;
    out64[i] = (unsigned long long)w + uw;
}

__global__ void int_asm(const unsigned* __restrict__ in, unsigned* __restrict__ out)
{
    unsigned a = in[threadIdx.x], b = in[threadIdx.x + 32], r, t;
    asm("bfe.u32 %0, %1, 4, 8;" : "=r"(r) : "r"(a));
    asm("bfe.s32 %0, %1, %2, 5;" : "=r"(t) : "r"(b), "r"(a)); r += t;
    asm("bfi.b32 %0, %1, %2, 8, 4;" : "=r"(t) : "r"(a), "r"(b)); r += t;
    asm("bfind.u32 %0, %1;" : "=r"(t) : "r"(a)); r += t;
    asm("bfind.shiftamt.s32 %0, %1;" : "=r"(t) : "r"(b)); r += t;
    asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(t) : "r"(a), "r"(b), "r"(r)); r += t;
    asm("prmt.b32.rc8 %0, %1, %2, %3;" : "=r"(t) : "r"(a), "r"(b), "r"(r)); r += t;
    asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(t) : "r"(a), "r"(b), "r"(r)); r += t;
    asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(t) : "r"(a), "r"(b), "r"(r)); r += t;
    asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(t) : "r"(a), "r"(b), "r"(r)); r += t;
    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(t) : "r"(a), "r"(b), "r"(r)); r += t;
    asm("popc.b32 %0, %1;" : "=r"(t) : "r"(a)); r += t;
    asm("fns.b32 %0, %1, %2, %3;" : "=r"(t) : "r"(a), "r"(b), "r"(1)); r += t;
    asm("szext.wrap.s32 %0, %1, %2;" : "=r"(t) : "r"(a), "r"(b)); r += t;
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(t) : "r"(a), "r"(b)); r += t;
    asm("sad.u32 %0, %1, %2, %3;" : "=r"(t) : "r"(a), "r"(b), "r"(r)); r += t;
    asm("mad.hi.sat.s32 %0, %1, %2, %3;" : "=r"(t) : "r"(a), "r"(b), "r"(r)); r += t;
    asm("mad24.lo.u32 %0, %1, %2, %3;" : "=r"(t) : "r"(a), "r"(b), "r"(r)); r += t;
    asm("add.cc.u32 %0, %1, %2;\n\taddc.cc.u32 %0, %0, %1;\n\taddc.u32 %0, %0, 0;" : "=r"(t) : "r"(a), "r"(b)); r += t;
    asm("sub.cc.u32 %0, %1, %2;\n\tsubc.u32 %0, %0, %1;" : "=r"(t) : "r"(a), "r"(b)); r += t;
    asm("mad.lo.cc.u32 %0, %1, %2, %3;\n\tmadc.hi.u32 %0, %1, %2, %0;" : "=r"(t) : "r"(a), "r"(b), "r"(r)); r += t;
    asm("add.sat.s32 %0, %1, %2;" : "=r"(t) : "r"(a), "r"(b)); r += t;
    asm("vadd.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(t) : "r"(a), "r"(b), "r"(r)); r += t;
    asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(t) : "r"(a), "r"(b), "r"(r)); r += t;
    asm("vmax2.u32.u32.u32 %0, %1, %2, %3;" : "=r"(t) : "r"(a), "r"(b), "r"(r)); r += t;
    asm("vset4.u32.u32.ne %0, %1, %2, %3;" : "=r"(t) : "r"(a), "r"(b), "r"(r)); r += t;
    asm("dp4a.s32.u32 %0, %1, %2, %3;" : "=r"(t) : "r"(a), "r"(b), "r"(r)); r += t;
    asm("dp2a.hi.u32.s32 %0, %1, %2, %3;" : "=r"(t) : "r"(a), "r"(b), "r"(r)); r += t;
    asm("cnot.b32 %0, %1;" : "=r"(t) : "r"(a)); r += t;
    asm("{ .reg .u16 h; cvt.u16.u32 h, %1; mul.wide.u16 %0, h, h; }" : "=r"(t) : "r"(a)); r += t;
    unsigned long long w;
    asm("mul.wide.u32 %0, %1, %2;" : "=l"(w) : "r"(a), "r"(b));
    long long sw;
    asm("mad.wide.s32 %0, %1, %2, %3;" : "=l"(sw) : "r"(a), "r"(b), "l"(w));   // nvcc itself emits mul.wide + add
    asm("mul24.hi.s32 %0, %1, %2;" : "=r"(t) : "r"(a), "r"(b)); r += t;
    asm("mad.lo.cc.u64 %0, %0, %1, %0;" : "+l"(w) : "l"(sw));
    asm("bfe.u64 %0, %0, 3, 17;" : "+l"(w));
    asm("brev.b64 %0, %0;" : "+l"(w));
    asm("clz.b64 %0, %1;" : "=r"(t) : "l"(w)); r += t;
    asm("shl.b64 %0, %0, %1;" : "+l"(w) : "r"(t));
    asm("shr.s64 %0, %0, 3;" : "+l"(w));
    asm("rem.s64 %0, %0, 17;" : "+l"(w));
    asm("not.b64 %0, %0;" : "+l"(w));
    asm("{ .reg .u32 lo, hi; mov.b64 {lo, hi}, %1; xor.b32 %0, lo, hi; }" : "=r"(t) : "l"(w)); r += t;
#if __CUDA_ARCH__ >= 900
    asm("max.relu.s16x2 %0, %1, %2;" : "=r"(t) : "r"(a), "r"(b)); r += t;
    asm("min.u16x2 %0, %1, %2;" : "=r"(t) : "r"(a), "r"(b)); r += t;
#endif
    out[threadIdx.x] = r;
}
