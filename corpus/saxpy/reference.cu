// saxpy: y[i] = a*x[i] + y[i], one thread per element.
extern "C" __global__ void saxpy(const float* __restrict__ x, float* __restrict__ y,
                                 float a, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
