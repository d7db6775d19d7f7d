// lion_step: Lion update of w and its momentum m.
extern "C" __global__ void lion_step(float* __restrict__ w, float* __restrict__ m, const float* __restrict__ g,
                                     float lr, float beta1, float beta2, float wd, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float gi = g[i], mi = m[i], wi = w[i];
    float c = beta1 * mi + (1.0f - beta1) * gi;
    float s = c > 0.0f ? 1.0f : (c < 0.0f ? -1.0f : 0.0f);
    w[i] = wi - lr * (s + wd * wi);
    m[i] = beta2 * mi + (1.0f - beta2) * gi;
}
