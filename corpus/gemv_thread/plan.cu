// gemv_thread: y = A x, A row-major rows x cols (f32), one thread per row, 128 threads per block.
// Thread r walks row r of A; x[c] is the same address for every thread of a warp (a broadcast
// that hits L1/L2).  A's reads are strided by cols across the warp (each thread streams its own
// row), inherent to one thread per row; L1 absorbs the neighbouring words of each sector.
extern "C" __global__ void gemv_thread(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, unsigned rows, unsigned cols)
{
    unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* pA = A + (size_t)row * cols;   // &A[row][0]; the row offset is 64-bit
    const float* px = x;
    unsigned left = cols;   // remaining columns
    float sum = 0.0f;
    // unrolled by 4: four loads of A and four of x in flight before the fma chain
    for (; left >= 4; left -= 4, pA += 4, px += 4) {
        float a0 = __ldg(pA), a1 = __ldg(pA + 1), a2 = __ldg(pA + 2), a3 = __ldg(pA + 3);
        float x0 = __ldg(px), x1 = __ldg(px + 1), x2 = __ldg(px + 2), x3 = __ldg(px + 3);
        sum = fmaf(a0, x0, sum); sum = fmaf(a1, x1, sum); sum = fmaf(a2, x2, sum); sum = fmaf(a3, x3, sum);
    }
    for (; left != 0; left--, pA++, px++) sum = fmaf(__ldg(pA), __ldg(px), sum);   // tail: cols % 4
    y[row] = sum;
}
