extern "C" __global__ void bclamp(const float* x, float* y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    v = fmaxf(v, 0.0f);
    v = fminf(v, 6.0f);
    y[i] = v;
}
