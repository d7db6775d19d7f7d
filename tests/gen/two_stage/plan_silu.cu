// ew_silu: out[i] = a[i] * sigmoid(a[i]), 4 consecutive elements per thread (bench/suite/ew_silu's launch)
extern "C" __global__ void ew_silu(const float* __restrict__ a, float* __restrict__ out, unsigned int n)
{
    unsigned int i0 = 4u * (blockIdx.x * blockDim.x + threadIdx.x);
    for (unsigned int j = 0; j < 4; j++) {
        unsigned int i = i0 + j;
        if (i < n) out[i] = a[i] / (1.0f + expf(-a[i]));
    }
}
