// bias_gelu_residual: y = gelu_tanh(x + bias[c]) + res, one thread per element.
extern "C" __global__ void bias_gelu_residual(const float* __restrict__ x, const float* __restrict__ bias,
                                              const float* __restrict__ res, float* __restrict__ y,
                                              unsigned int rows, unsigned int cols)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)rows * cols) return;
    float v = x[i] + bias[i % cols];
    float g = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    y[i] = g + res[i];
}
