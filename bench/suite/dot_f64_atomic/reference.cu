// dot_f64_atomic: out[0] += dot(x, y) in double; grid-stride, block reduction, one atomicAdd per block.
extern "C" __global__ void dot_f64_atomic(const double* __restrict__ x, const double* __restrict__ y,
                                          double* __restrict__ out, unsigned int n)
{
    __shared__ double red[8];
    double s = 0.0;
    unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) s = fma(x[i], y[i], s);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) red[warp] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        double t = 0.0;
        for (int k = 0; k < 8; k++) t += red[k];
        atomicAdd(out, t);
    }
}
