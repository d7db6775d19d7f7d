// relu6: y = min(max(x, 0), 6).
extern "C" __global__ void relu6(const float* __restrict__ x, float* __restrict__ y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fminf(fmaxf(x[i], 0.0f), 6.0f);
}
