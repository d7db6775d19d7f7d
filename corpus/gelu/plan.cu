// gelu: y[i] = 0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x^3))) for i < n (f32), the tanh form.
// One thread per element, 256 threads per block; DRAM-bound (8 bytes per element).
// With u = sqrt(2/pi)*(x + 0.044715*x^3), 0.5*(1 + tanh(u)) = 1 / (1 + exp(-2u)), so
// y = x / (1 + exp(-2u)): no cancellation in 1 + tanh(u) for u << 0, and only ex2 + rcp:
//   t = -2*u*log2(e) = x * (C + C*0.044715*x^2), C = -2*sqrt(2/pi)*log2(e); y = x * rcp(1 + 2^t).
// Not tanh.approx: its ~5e-4 relative error fails the 1e-5 tolerance.  Extremes: x << 0 gives
// 2^t = +inf, rcp = 0, y = -0; x >> 0 gives 2^t = 0, y = x.
extern "C" __global__ void __launch_bounds__(256) gelu(const float* __restrict__ x, float* __restrict__ y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;   // threads of the partial last block exit
    size_t off = (size_t)i;   // 64-bit byte offset of element i, shared by x and y
    float v = __ldg(x + off);
    float x2 = __fmul_rn(v, v);                            // x^2
    float p = __fmaf_rn(x2, -0.10294324f, -2.3022082f);    // C*0.044715*x^2 + C (C = -2.302208198)
    float t = __fmul_rn(p, v);                             // t = p*x = -2u*log2(e)
    float e = exp2f(t);                                    // exp(-2u): ex2.approx
    float d = __fadd_rn(e, 1.0f);                          // 1 + exp(-2u)
    float s = __fdividef(1.0f, d);                         // 0.5*(1 + tanh(u)): rcp.approx
    y[off] = __fmul_rn(v, s);                              // y = x * that
}
