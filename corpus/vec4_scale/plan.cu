// vec4_scale: y[i] = s * x[i] for i < n (f32), four elements per thread with 128-bit accesses.
// 256 threads per block, grid cdiv(n,1024): thread t owns elements 4t .. 4t+3.  x and y are
// 16-byte aligned (cudaMalloc gives 256), so one float4 load and store move all four: per warp
// 512 contiguous bytes per instruction, a quarter of the scalar version's instructions.
extern "C" __global__ void __launch_bounds__(256) vec4_scale(const float* __restrict__ x, float* __restrict__ y, float s, unsigned int n)
{
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int base = 4 * t;   // first element owned (4t in 32 bits: assumes n < 2^32 - 1024)
    if (base >= n) return;       // nothing owned
    unsigned int rem = n - base; // >= 1: computed after the check, so nothing wraps
    const float* xp = x + base;  // byte offset a multiple of 16
    float* yp = y + base;
    if (rem >= 4) {              // full group: one 128-bit load, four multiplies, one 128-bit store
        float4 v = __ldg(reinterpret_cast<const float4*>(xp));
        v.x = __fmul_rn(v.x, s); v.y = __fmul_rn(v.y, s); v.z = __fmul_rn(v.z, s); v.w = __fmul_rn(v.w, s);
        *reinterpret_cast<float4*>(yp) = v;
        return;
    }
    // tail: rem is 1, 2 or 3, scalar accesses (a vector access would pass the end of the buffers)
    yp[0] = __fmul_rn(__ldg(xp), s);
    if (rem < 2) return;
    yp[1] = __fmul_rn(__ldg(xp + 1), s);
    if (rem < 3) return;
    yp[2] = __fmul_rn(__ldg(xp + 2), s);
}
