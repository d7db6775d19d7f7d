extern "C" __global__ void __launch_bounds__(128) rowmax(const double *in, double *out, unsigned rows, unsigned cols) {
    __shared__ double s[128];
    unsigned row = blockIdx.x;
    if (row >= rows) return;
    double m = -1e300;
    for (unsigned c = threadIdx.x; c < cols; c += blockDim.x) m = fmax(m, in[row * cols + c]);
    s[threadIdx.x] = m;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] = fmax(s[threadIdx.x], s[threadIdx.x + k]);
        __syncthreads();
    }
    if (threadIdx.x == 0) out[row] = s[0];
}
