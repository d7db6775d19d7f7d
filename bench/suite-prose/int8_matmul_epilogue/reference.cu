// int8_matmul_epilogue: out = silu(acc * a_scale[row] * w_scale[col] + bias[col]).
extern "C" __global__ void int8_matmul_epilogue(const int* __restrict__ acc, const float* __restrict__ a_scale,
                                                const float* __restrict__ w_scale, const float* __restrict__ bias,
                                                float* __restrict__ out, unsigned int M, unsigned int N)
{
    size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (size_t)M * N) return;
    size_t r = e / N, c = e % N;
    float v = (float)acc[e] * a_scale[r] * w_scale[c] + bias[c];
    out[e] = v / (1.0f + expf(-v));
}
