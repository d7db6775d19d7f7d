// rows_sum_bf16_t64: sum of every row of a rows x cols row-major __nv_bfloat16 matrix.
#include <cuda_bf16.h>
#define LD(a_) __bfloat162float(a_)
#define ST(v_) __float2bfloat16_rn(v_)
extern "C" __global__ void rows_sum_bf16_t64(const __nv_bfloat16* __restrict__ in, float* __restrict__ y, unsigned int rows, unsigned int cols)
{
    unsigned int row = blockIdx.x * 64 + threadIdx.x;
    if (row >= rows) return;
    const __nv_bfloat16* xrow = in + (size_t)row * cols;
    float acc = 0;
    for (unsigned int col = 0; col < cols; col++) acc += LD(xrow[col]);
    y[row] = acc;
}
#undef LD
#undef ST
