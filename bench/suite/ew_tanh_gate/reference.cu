// ew_tanh_gate: out[i] = tanh(a)*sigmoid(b) for i < n (f32), one element per thread.
__device__ __forceinline__ float ew_tanh_gate_f(float a, float b)
{
    return tanhf(a)*(1.0f/(1.0f + expf(-(b))));
}

extern "C" __global__ void ew_tanh_gate(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
    unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = ew_tanh_gate_f(a[i], b[i]);
}
