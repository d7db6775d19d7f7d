// bce_with_logits: loss = max(z,0) - z*y + log1p(exp(-|z|)) (the stable form).
extern "C" __global__ void bce_with_logits(const float* __restrict__ logits, const float* __restrict__ labels,
                                           float* __restrict__ loss, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float z = logits[i], y = labels[i];
    loss[i] = fmaxf(z, 0.0f) - z * y + log1pf(expf(-fabsf(z)));
}
