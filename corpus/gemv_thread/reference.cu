// GEMV y = A x (A row-major rows x cols), one thread per row.
extern "C" __global__ void gemv_thread(const float* __restrict__ A,
                                       const float* __restrict__ x,
                                       float* __restrict__ y,
                                       unsigned rows, unsigned cols)
{
    unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* a = A + (size_t)row * cols;
    float sum = 0.0f;
    for (unsigned c = 0; c < cols; ++c)
        sum = fmaf(a[c], x[c], sum);
    y[row] = sum;
}
