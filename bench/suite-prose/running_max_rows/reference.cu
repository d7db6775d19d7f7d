// running_max_rows: inclusive max-scan of every row, one 256-thread block per row,
// 256 columns at a time (warp shuffles, then a scan over the 8 warp maxima, plus a carry).
#define NT 256
#define FULL 0xffffffffu
extern "C" __global__ void running_max_rows(const float* __restrict__ x, float* __restrict__ out,
                                            unsigned int rows, unsigned int cols)
{
    __shared__ float wmax[NT / 32];
    unsigned int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float* orow = out + (size_t)row * cols;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float carry = -INFINITY;
    for (unsigned int base = 0; base < cols; base += NT) {
        unsigned int j = base + threadIdx.x;
        float v = j < cols ? xr[j] : -INFINITY;
        for (int o = 1; o < 32; o <<= 1) {
            float u = __shfl_up_sync(FULL, v, o);
            if (lane >= o) v = fmaxf(v, u);
        }
        if (lane == 31) wmax[warp] = v;
        __syncthreads();
        if (warp == 0) {
            float w = lane < NT / 32 ? wmax[lane] : -INFINITY;
            for (int o = 1; o < 32; o <<= 1) {
                float u = __shfl_up_sync(FULL, w, o);
                if (lane >= o) w = fmaxf(w, u);
            }
            if (lane < NT / 32) wmax[lane] = w;
        }
        __syncthreads();
        if (warp > 0) v = fmaxf(v, wmax[warp - 1]);
        v = fmaxf(v, carry);
        if (j < cols) orow[j] = v;
        carry = fmaxf(carry, wmax[NT / 32 - 1]);
        __syncthreads();   // wmax is rewritten by the next chunk
    }
}
