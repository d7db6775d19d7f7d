// softplus_beta: y = log1p(exp(beta x)) / beta, or x where beta x > threshold.
extern "C" __global__ void softplus_beta(const float* __restrict__ x, float* __restrict__ y, float beta,
                                         float threshold, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], bx = beta * v;
    y[i] = bx > threshold ? v : log1pf(expf(bx)) / beta;
}
