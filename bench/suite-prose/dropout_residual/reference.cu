// dropout_residual: out = res + x * mask / (1 - p).
extern "C" __global__ void dropout_residual(const float* __restrict__ x, const unsigned char* __restrict__ mask,
                                            const float* __restrict__ res, float* __restrict__ out, float p,
                                            unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float scale = 1.0f / (1.0f - p);
    out[i] = res[i] + (mask[i] ? x[i] * scale : 0.0f);
}
