// chebyshev_eval: y = sum_k c[k] T_k(x) by Clenshaw's recurrence.
extern "C" __global__ void chebyshev_eval(const float* __restrict__ x, const float* __restrict__ c,
                                          float* __restrict__ y, unsigned int K, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float t = x[i], t2 = 2.0f * t, b1 = 0.0f, b2 = 0.0f;
    for (int k = (int)K - 1; k >= 1; k--) {
        float b0 = t2 * b1 - b2 + c[k];
        b2 = b1;
        b1 = b0;
    }
    y[i] = t * b1 - b2 + c[0];
}
