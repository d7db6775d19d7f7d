// transpose_padded: out = in^T, in is rows x cols (row-major f32), out is cols x rows.
// Block (32,8) (.reqntid 32, 8, 1) moves one 32x32 tile through shared memory.  Load phase:
// thread (tx,ty) reads in[by*32+ty+8j][bx*32+tx], j = 0..3 (coalesced along tx), into
// tile[ty+8j][tx]; after the barrier it writes out[bx*32+ty+8j][by*32+tx] = tile[tx][ty+8j]
// (coalesced along tx).  Edge tiles skip out-of-range elements (rows and cols need not be
// multiples of 32); no thread exits before the barrier.
extern "C" __global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out, unsigned rows, unsigned cols)
{
    __shared__ float tile[32][33];   // rows padded to 33 floats: a column walk hits 32 distinct banks
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    unsigned c0 = blockIdx.x * 32, r0 = blockIdx.y * 32;   // the tile's first input column and row
    // ---- load: in[r0+ty+8j][c0+tx] -> tile[ty+8j][tx] ----
    unsigned col = c0 + tx;   // input column
    bool col_ok = col < cols;
    unsigned row = r0 + ty;   // input row for j = 0
    const float* src = in + ((size_t)row * cols + col);   // 8 rows further: + 8*cols
    float* ts = &tile[ty][tx];   // 8 rows further: + 8*33 floats
    #pragma unroll
    for (int j = 0; j < 32; j += 8) { if (row + j < rows && col_ok) ts[j * 33] = __ldg(src); src += 8 * (size_t)cols; }
    __syncthreads();
    // ---- store: out[c0+ty+8j][r0+tx] = tile[tx][ty+8j] ----
    unsigned ocol = r0 + tx;   // output column = input row
    bool ocol_ok = ocol < rows;
    unsigned orow = c0 + ty;   // output row = input column, for j = 0
    float* dst = out + ((size_t)orow * rows + ocol);   // 8 rows further: + 8*rows
    const float* tl = &tile[tx][ty];   // 8 columns further: + 8 floats
    #pragma unroll
    for (int j = 0; j < 32; j += 8) { if (orow + j < cols && ocol_ok) *dst = tl[j]; dst += 8 * (size_t)rows; }
}
