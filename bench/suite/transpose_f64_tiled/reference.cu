// transpose_f64_tiled: 32x32 tiles through a padded shared array; block 32x8.
#define TILE 32
extern "C" __global__ void transpose_f64_tiled(const double* __restrict__ in, double* __restrict__ out,
                                               unsigned int rows, unsigned int cols)
{
    __shared__ double tile[TILE][TILE + 1];
    unsigned int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
    for (unsigned int k = threadIdx.y; k < TILE; k += 8) {
        unsigned int r = r0 + k, c = c0 + threadIdx.x;
        if (r < rows && c < cols) tile[k][threadIdx.x] = in[(size_t)r * cols + c];
    }
    __syncthreads();
    for (unsigned int k = threadIdx.y; k < TILE; k += 8) {
        unsigned int c = c0 + k, r = r0 + threadIdx.x;   // output row c, column r
        if (r < rows && c < cols) out[(size_t)c * rows + r] = tile[threadIdx.x][k];
    }
}
