// clamp: y[i] = min(max(x[i], lo), hi), one thread per element.
extern "C" __global__ void clamp(const float* __restrict__ x, float* __restrict__ y,
                                 float lo, float hi, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fminf(fmaxf(x[i], lo), hi);
}
