// batched_small_matvec: y[b] = A[b] x[b], one thread per output element.
extern "C" __global__ void batched_small_matvec(const float* __restrict__ A, const float* __restrict__ x,
                                                float* __restrict__ y, unsigned int batch, unsigned int M, unsigned int K)
{
    size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= (size_t)batch * M) return;
    size_t b = g / M;
    const float* a = A + g * K;
    const float* xv = x + b * K;
    float s = 0.0f;
    for (unsigned int k = 0; k < K; k++) s += a[k] * xv[k];
    y[g] = s;
}
