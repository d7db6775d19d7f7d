// gemv_transposed: y = A^T x, one thread per column (coalesced row reads).
extern "C" __global__ void gemv_transposed(const float* __restrict__ A, const float* __restrict__ x,
                                           float* __restrict__ y, unsigned int rows, unsigned int cols)
{
    unsigned int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float s = 0.0f;
    for (unsigned int r = 0; r < rows; r++) s += A[(size_t)r * cols + c] * x[r];
    y[c] = s;
}
