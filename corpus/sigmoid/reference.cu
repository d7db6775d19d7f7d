// sigmoid: y[i] = 1 / (1 + exp(-x[i])), one thread per element.
extern "C" __global__ void sigmoid(const float* __restrict__ x, float* __restrict__ y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 1.0f / (1.0f + expf(-x[i]));
}
