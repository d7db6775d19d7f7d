// vecadd_v4: c[i] = a[i] + b[i] for i < n (f32), four elements per thread with 128-bit accesses.
// 256 threads per block, grid cdiv(n,1024): thread t owns elements 4t .. 4t+3.  a, b, c are
// 16-byte aligned (cudaMalloc gives 256): one float4 load per input and one float4 store cover the
// group, 512 contiguous bytes per warp and instruction; both vector loads issue before the adds.
extern "C" __global__ void __launch_bounds__(256) vecadd_v4(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, unsigned int n)
{
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int base = 4 * t;   // first element owned (4t in 32 bits: assumes n < 2^32 - 1024)
    if (base >= n) return;       // nothing owned
    unsigned int rem = n - base; // >= 1: computed after the check, so nothing wraps
    const float* pa = a + base;  // byte offset a multiple of 16
    const float* pb = b + base;
    float* pc = c + base;
    if (rem >= 4) {              // full group: two 128-bit loads, four adds, one 128-bit store
        float4 va = __ldg(reinterpret_cast<const float4*>(pa));
        float4 vb = __ldg(reinterpret_cast<const float4*>(pb));
        float4 vc = make_float4(__fadd_rn(va.x, vb.x), __fadd_rn(va.y, vb.y), __fadd_rn(va.z, vb.z), __fadd_rn(va.w, vb.w));
        *reinterpret_cast<float4*>(pc) = vc;
        return;
    }
    // tail: rem is 1, 2 or 3, scalar accesses (none past n)
    pc[0] = __fadd_rn(__ldg(pa), __ldg(pb));
    if (rem < 2) return;
    pc[1] = __fadd_rn(__ldg(pa + 1), __ldg(pb + 1));
    if (rem < 3) return;
    pc[2] = __fadd_rn(__ldg(pa + 2), __ldg(pb + 2));
}
