// axpby_relu: out[i] = max(alpha*x[i] + beta*y[i], 0), one thread per element.
extern "C" __global__ void axpby_relu(const float* __restrict__ x, const float* __restrict__ y,
                                      float* __restrict__ out, float alpha, float beta,
                                      unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fmaxf(alpha * x[i] + beta * y[i], 0.0f);
}
