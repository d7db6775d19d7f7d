// GEMV y = A x (A row-major rows x cols), one warp per row, coalesced, shuffle reduction.
extern "C" __global__ void gemv_warp(const float* __restrict__ A,
                                     const float* __restrict__ x,
                                     float* __restrict__ y,
                                     unsigned rows, unsigned cols)
{
    unsigned row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float* a = A + (size_t)row * cols;
    float sum = 0.0f;
    if ((cols & 3) == 0) {
        const float4* a4 = reinterpret_cast<const float4*>(a);
        const float4* x4 = reinterpret_cast<const float4*>(x);
        for (unsigned c = lane; c < cols / 4; c += 32) {
            float4 av = a4[c], xv = x4[c];
            sum = fmaf(av.x, xv.x, sum);
            sum = fmaf(av.y, xv.y, sum);
            sum = fmaf(av.z, xv.z, sum);
            sum = fmaf(av.w, xv.w, sum);
        }
    } else {
        for (unsigned c = lane; c < cols; c += 32)
            sum = fmaf(a[c], x[c], sum);
    }
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_xor_sync(0xffffffffu, sum, off);
    if (lane == 0) y[row] = sum;
}
