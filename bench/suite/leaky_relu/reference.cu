// leaky_relu: y = x > 0 ? x : alpha*x.
extern "C" __global__ void leaky_relu(const float* __restrict__ x, float* __restrict__ y, float alpha, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; y[i] = v > 0.0f ? v : alpha * v; }
}
