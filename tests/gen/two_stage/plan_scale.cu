// scale: y[i] = a * x[i] for i < n
extern "C" __global__ void scale(const float* __restrict__ x, float* __restrict__ y, float a, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}
