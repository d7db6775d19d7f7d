// transpose_naive: out = in^T, in is rows x cols (row-major f32), out is cols x rows.
// One thread per element, block (32,8): thread (x = column, y = row) copies in[y][x] to out[x][y].
// Reads are coalesced along threadIdx.x; writes are strided by rows floats (one 32-byte sector
// per thread), which is what makes this the slow baseline transpose.
extern "C" __global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, unsigned rows, unsigned cols)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;   // input column
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;   // input row
    if (x >= cols || y >= rows) return;
    float v = __ldg(&in[(size_t)y * cols + x]);   // coalesced read
    out[(size_t)x * rows + y] = v;                // strided write
}
