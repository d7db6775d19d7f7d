// stencil1d_3pt: 3-point stencil with a shared-memory halo; the first and
// last elements are copied.  blockDim.x must be 256 (the tile size).
#define TILE 256
extern "C" __global__ void stencil1d_3pt(const float* __restrict__ x, float* __restrict__ out,
                                         float a, float b, float c, unsigned int n)
{
    __shared__ float tile[TILE + 2];
    unsigned int t = threadIdx.x;
    unsigned int bs = blockIdx.x * blockDim.x;
    unsigned int i = bs + t;
    float v = i < n ? x[i] : 0.0f;
    tile[t + 1] = v;
    if (t == 0) {
        tile[0] = bs > 0 ? x[bs - 1] : 0.0f;
        unsigned int r = bs + blockDim.x;
        tile[blockDim.x + 1] = r < n ? x[r] : 0.0f;
    }
    __syncthreads();
    if (i >= n) return;
    if (i == 0 || i == n - 1) out[i] = v;
    else out[i] = a * tile[t] + b * v + c * tile[t + 2];
}
