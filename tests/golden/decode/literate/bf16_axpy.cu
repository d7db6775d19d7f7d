// bf16_axpy: y[i] = bf16(a * float(x[i]) + float(y[i])) for i < n (x, y bfloat16, y in place;
// the arithmetic in f32).  One thread per element, 256 threads per block; 6 bytes of DRAM traffic
// per element, bandwidth-bound.
#include <cuda_bf16.h>

extern "C" __global__ void __launch_bounds__(256) bf16_axpy(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, float a, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;   // threads of the partial last block exit
    size_t off = (size_t)i;   // byte offset 2*i, shared by x and y
    unsigned short xb = __bfloat16_as_ushort(__ldg(x + off));   // x bits, read-only path
    unsigned short yb = __bfloat16_as_ushort(y[off]);            // y bits (read and written here)
    // bf16 -> f32 is exact: the bf16 bits are the high half of the f32 (no conversion instruction)
    float xf = __uint_as_float((unsigned)xb << 16);
    float yf = __uint_as_float((unsigned)yb << 16);
    float r = fmaf(a, xf, yf);             // a*x + y in f32, one rounding
    y[off] = __float2bfloat16_rn(r);       // back to bf16, nearest even (sm_80+)
}
