// poly_horner7: y = c0 + c1 x + ... + c7 x^7 by Horner's rule.
extern "C" __global__ void poly_horner7(const float* __restrict__ x, const float* __restrict__ coef,
                                        float* __restrict__ y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float acc = coef[7];
    #pragma unroll
    for (int k = 6; k >= 0; k--) acc = fmaf(acc, v, coef[k]);
    y[i] = acc;
}
