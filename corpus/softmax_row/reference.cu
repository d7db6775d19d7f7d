// softmax_row: numerically stable softmax of each row; one 256-thread block
// per row, warp-shuffle + shared-memory block reductions, three passes.
#define NT 256
__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
extern "C" __global__ void softmax_row(const float* __restrict__ x, float* __restrict__ y,
                                       unsigned int rows, unsigned int cols)
{
    __shared__ float red[NT / 32];
    __shared__ float bcast;
    unsigned int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

    float m = -INFINITY;
    for (unsigned int j = threadIdx.x; j < cols; j += NT) m = fmaxf(m, xr[j]);
    m = warp_max(m);
    if (lane == 0) red[warp] = m;
    __syncthreads();
    if (warp == 0) {
        m = lane < NT / 32 ? red[lane] : -INFINITY;
        m = warp_max(m);
        if (lane == 0) bcast = m;
    }
    __syncthreads();
    m = bcast;

    float s = 0.0f;
    for (unsigned int j = threadIdx.x; j < cols; j += NT) s += __expf(xr[j] - m);
    s = warp_sum(s);
    __syncthreads();                 // everyone has read bcast / red
    if (lane == 0) red[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < NT / 32 ? red[lane] : 0.0f;
        s = warp_sum(s);
        if (lane == 0) bcast = s;
    }
    __syncthreads();
    float inv = 1.0f / bcast;

    for (unsigned int j = threadIdx.x; j < cols; j += NT) yr[j] = __expf(xr[j] - m) * inv;
}
