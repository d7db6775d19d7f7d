// complex_mul: c = a * b for interleaved complex floats, one complex per thread.
extern "C" __global__ void complex_mul(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, unsigned int n)
{
    unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    float2 x = reinterpret_cast<const float2*>(a)[k];
    float2 y = reinterpret_cast<const float2*>(b)[k];
    reinterpret_cast<float2*>(c)[k] = make_float2(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}
