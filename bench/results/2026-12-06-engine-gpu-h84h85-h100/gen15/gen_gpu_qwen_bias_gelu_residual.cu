#include <cuda_fp16.h>
#include <cuda_bf16.h>
// bias_gelu_residual: y = act(x + bias) + res over rows x cols, one row per blockIdx.y
extern "C" __global__ void bias_gelu_residual(const float* __restrict__ x, const float* __restrict__ bias, const float* __restrict__ res, float* __restrict__ y, unsigned int rows, unsigned int cols)
{
    unsigned int r = blockIdx.y;
    unsigned int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols) {
        size_t i = (size_t)r * cols + c;
        float v = x[i] + bias[c];
        v = 0.5f * v * fmaxf(fmaxf(v, 0.0f), 0.1f * tanhf(sqrtf(2.0f / M_PI) * (v + 0.044715f * v * v * v)));
        v = v + res[i];
        y[i] = v;
    }
}
