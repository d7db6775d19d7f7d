// adagrad_step: h += g^2; w -= lr * g / (sqrt(h) + eps).
extern "C" __global__ void adagrad_step(float* __restrict__ w, float* __restrict__ h, const float* __restrict__ g,
                                        float lr, float eps, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float gi = g[i];
    float hi = h[i] + gi * gi;
    h[i] = hi;
    w[i] = w[i] - lr * gi / (sqrtf(hi) + eps);
}
