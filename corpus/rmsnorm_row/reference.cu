// rmsnorm_row: RMSNorm over each row with a per-column weight; one 256-thread
// block per row, warp-shuffle + shared-memory reduction.
#define NT 256
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
extern "C" __global__ void rmsnorm_row(const float* __restrict__ x, const float* __restrict__ w,
                                       float* __restrict__ y, float eps,
                                       unsigned int rows, unsigned int cols)
{
    __shared__ float red[NT / 32 + 1];
    unsigned int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

    float s = 0.0f;
    for (unsigned int j = threadIdx.x; j < cols; j += NT) s += xr[j] * xr[j];
    s = warp_sum(s);
    if (lane == 0) red[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < NT / 32 ? red[lane] : 0.0f;
        s = warp_sum(s);
        if (lane == 0) red[NT / 32] = s;
    }
    __syncthreads();
    float scale = rsqrtf(red[NT / 32] / (float)cols + eps);

    for (unsigned int j = threadIdx.x; j < cols; j += NT) yr[j] = xr[j] * scale * w[j];
}
