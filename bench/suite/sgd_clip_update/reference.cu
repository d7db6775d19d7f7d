// sgd_clip_update: w -= lr * (clamp(g, -clip, clip) + wd*w).
extern "C" __global__ void sgd_clip_update(float* __restrict__ w, const float* __restrict__ g,
                                           float lr, float clip, float wd, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float gc = fminf(fmaxf(g[i], -clip), clip);
    float wi = w[i];
    w[i] = wi - lr * (gc + wd * wi);
}
