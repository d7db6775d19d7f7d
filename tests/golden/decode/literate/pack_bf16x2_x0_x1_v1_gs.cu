#include <cuda_fp16.h>
#include <cuda_bf16.h>
// pack_bf16x2_x0_x1_v1_gs: pack_two
extern "C" __global__ void pack_bf16x2_x0_x1_v1_gs(const float* __restrict__ x0, const float* __restrict__ x1, unsigned int* __restrict__ result, unsigned int n)
{
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float x0_e = x0[i];
        float x1_e = x1[i];
        unsigned int result_e;
        __nv_bfloat162 h = __floats2bfloat162_rn(x0_e, x1_e);
        result_e = *reinterpret_cast<unsigned int*>(&h);   // x0 in the low half
        result[i] = result_e;
    }
}
