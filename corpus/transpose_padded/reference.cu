// Matrix transpose out = in^T (in: rows x cols), 32x32 shared tile padded to 33, block 32x8.
#define TILE 32
extern "C" __global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out,
                                            unsigned rows, unsigned cols)
{
    __shared__ float tile[TILE][TILE + 1];
    unsigned x = blockIdx.x * TILE + threadIdx.x;
    unsigned y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += 8)
        if (x < cols && y + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;   // output column (input row)
    y = blockIdx.x * TILE + threadIdx.y;   // output row (input column)
#pragma unroll
    for (int j = 0; j < TILE; j += 8)
        if (x < rows && y + j < cols)
            out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
