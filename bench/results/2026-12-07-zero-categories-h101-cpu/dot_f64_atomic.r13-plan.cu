// dot_f64_atomic: dot of double x and y into out[0] (grid-stride, block reduction, one atomic per block).
extern "C" __global__ void dot_f64_atomic(const double* __restrict__ x, const double* __restrict__ y, double* __restrict__ out, unsigned int n)
{
    __shared__ double red[32];
    unsigned int tid = threadIdx.x, lane = tid & 31, warp_id = tid >> 5;
    double acc = 0;
    for (size_t base = (size_t)blockIdx.x * 256 + tid; base < n; base += (size_t)gridDim.x * 256) {
#pragma unroll
        for (int k = 0; k < 1; k++) {   // 1 coalesced elements per thread per step
            size_t i = base + (size_t)k * 256;
            if (i < n) acc += x[i] * y[i];
        }
    }
    for (int offset = 16; offset > 0; offset >>= 1) acc = acc + __shfl_xor_sync(0xffffffffu, acc, offset);
    if (lane == 0) red[warp_id] = acc;
    __syncthreads();
    acc = lane < 8 ? red[lane] : 0;
    for (int offset = 16; offset > 0; offset >>= 1) acc = acc + __shfl_xor_sync(0xffffffffu, acc, offset);
    __syncthreads();   // red is reused by the next reduction
    if (tid == 0) {   // one atomic per block
        atomicAdd(out, acc);
    }
}
