// adam_step: one Adam update of w, m, v in place.
extern "C" __global__ void adam_step(float* __restrict__ w, const float* __restrict__ g,
                                     float* __restrict__ m, float* __restrict__ v,
                                     float lr, float beta1, float beta2, float eps, float c1, float c2,
                                     unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float gi = g[i];
    float mi = beta1 * m[i] + (1.0f - beta1) * gi;
    float vi = beta2 * v[i] + (1.0f - beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    w[i] = w[i] - lr * (mi * c1) / (sqrtf(vi * c2) + eps);
}
