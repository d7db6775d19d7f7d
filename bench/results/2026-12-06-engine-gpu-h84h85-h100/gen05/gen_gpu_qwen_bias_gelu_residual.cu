#include <cuda_fp16.h>
#include <cuda_bf16.h>
// bias_gelu_residual: y = act(x + bias) + res over the flattened rows x cols
extern "C" __global__ void bias_gelu_residual(const float* __restrict__ x, const float* __restrict__ bias, const float* __restrict__ res, float* __restrict__ y, unsigned int rows, unsigned int cols)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols) return;
    float x_e = x[i];
    float res_e = res[i];
    float y_e;
    float v = x_e + bias[i % cols];
    v = (v / (1.0f + expf(-1.5957691216057308f * (v + 0.044715f * v * v * v))));
    v = v + res_e;
    y_e = v;
    y[i] = y_e;
}
