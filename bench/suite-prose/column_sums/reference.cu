// column_sums: out[c] = sum_r A[r][c], one thread per column (coalesced across the warp).
extern "C" __global__ void column_sums(const float* __restrict__ A, float* __restrict__ out,
                                       unsigned int rows, unsigned int cols)
{
    unsigned int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float s = 0.0f;
    for (unsigned int r = 0; r < rows; r++) s += A[(size_t)r * cols + c];
    out[c] = s;
}
