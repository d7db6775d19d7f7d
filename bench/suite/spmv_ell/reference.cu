// spmv_ell: y = A x, ELL slot-major storage, one thread per row, col -1 = padding.
extern "C" __global__ void spmv_ell(const int* __restrict__ col, const float* __restrict__ val,
                                    const float* __restrict__ x, float* __restrict__ y,
                                    unsigned int rows, unsigned int cols, unsigned int K)
{
    unsigned int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f;
    for (unsigned int k = 0; k < K; k++) {
        size_t p = (size_t)k * rows + r;
        int c = col[p];
        if (c >= 0) s += val[p] * x[c];
    }
    y[r] = s;
}
