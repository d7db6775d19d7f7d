// swap_rows: exchange rows r0 and r1 of a row-major rows x cols matrix.
extern "C" __global__ void swap_rows(float* __restrict__ A, unsigned int rows, unsigned int cols,
                                     unsigned int r0, unsigned int r1)
{
    unsigned int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols || r0 == r1) return;
    size_t a = (size_t)r0 * cols + c, b = (size_t)r1 * cols + c;
    float t = A[a];
    A[a] = A[b];
    A[b] = t;
}
