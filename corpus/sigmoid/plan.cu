// sigmoid: y[i] = 1 / (1 + exp(-x[i])) for i < n (f32). One thread per element, 256 per block.
// exp(-x) = 2^(-x*log2(e)) with the hardware ex2.approx (about 2 ulp), then 1/(1+e) with
// rcp.approx (about 1 ulp): for |x| <= 10 the relative error stays below ~1e-6, inside the 1e-5
// tolerance.  Extremes are safe: x << 0 gives e = +inf and rcp(+inf) = 0; x >> 0 gives exactly 1.
// Both this and nvcc's expf + IEEE division are far below the DRAM time (8 bytes per element).
extern "C" __global__ void __launch_bounds__(256) sigmoid(const float* __restrict__ x, float* __restrict__ y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;   // threads of the partial last block exit
    const float* xp = x + i;   // 64-bit byte offset of element i, shared by x and y
    float* yp = y + i;
    float v = __ldg(xp);
    float t = __fmul_rn(v, -1.44269504f);   // -x * log2(e)
    float e = exp2f(t);                     // exp(-x): the hardware ex2.approx
    float d = __fadd_rn(e, 1.0f);           // 1 + exp(-x)
    *yp = __fdividef(1.0f, d);              // 1 / (1 + exp(-x)), approximate: rcp.approx
}
