#include <cuda_fp16.h>
#include <cuda_bf16.h>
// pack_f16x2_pairs: out[i] = the pair in0[2i], in0[2i+1] rounded to f16 and packed (first value in the low 16 bits)
extern "C" __global__ void pack_f16x2_pairs(const float* __restrict__ in0, unsigned int* __restrict__ out, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float2 pair = reinterpret_cast<const float2*>(in0)[i];
        __half2 h = __floats2half2_rn(pair.x, pair.y);
        out[i] = *reinterpret_cast<unsigned int*>(&h);
    }
}
