// transpose_f64_tiled: out (cols x rows) = transpose of in (rows x cols), double, direct (reads coalesced, writes strided).
extern "C" __global__ void transpose_f64_tiled(const double* __restrict__ in, double* __restrict__ out, unsigned int rows, unsigned int cols)
{
    unsigned int c0 = blockIdx.x * 32, r0 = blockIdx.y * 32;
    for (unsigned int j = threadIdx.y; j < 32; j += 8) {
        unsigned int rr = r0 + j, cc = c0 + threadIdx.x;
        if (rr < rows && cc < cols) out[(size_t)cc * rows + rr] = in[(size_t)rr * cols + cc];
    }
}
