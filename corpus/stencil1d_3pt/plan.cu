// stencil1d_3pt: out[i] = a*x[i-1] + b*x[i] + c*x[i+1] for 0 < i < n-1; out[0] = x[0] and
// out[n-1] = x[n-1] (boundary values copied).  f32, one thread per output, 256 per block.
// Each block stages its 256 inputs plus a one-element halo on each side in shared memory, so every
// input is read from DRAM once by its owner and the neighbours come from shared memory
// (conflict-free: consecutive threads read consecutive words).  Thread 0 fetches both halo values.
// Elements at or beyond n are stored as 0 (never used: out[n-1] is a copy).
extern "C" __global__ void __launch_bounds__(256) stencil1d_3pt(const float* __restrict__ x, float* __restrict__ out, float a, float b, float c, unsigned int n)
{
    __shared__ float tile[258];   // static: blockDim.x <= 256; tile[1+t] = x[bs+t]
    unsigned int t = threadIdx.x;
    unsigned int bs = blockIdx.x * blockDim.x;   // first element of the block
    unsigned int i = bs + t;
    bool in_range = i < n;
    // ---- centre element: x[i] (0 when i >= n) -> tile[t+1] ----
    float v = in_range ? __ldg(&x[i]) : 0.0f;
    tile[t + 1] = v;
    // ---- halo, thread 0 only: tile[0] = x[bs-1], tile[blockDim.x+1] = x[bs+blockDim.x] ----
    if (t == 0) {
        tile[0] = bs > 0 ? __ldg(&x[bs - 1]) : 0.0f;   // bs > 0: a left neighbour exists
        unsigned int r = bs + blockDim.x;
        tile[blockDim.x + 1] = r < n ? __ldg(&x[r]) : 0.0f;
    }
    __syncthreads();   // reached by every thread: out-of-range threads only skip the loads
    if (!in_range) return;
    float s = fmaf(a, tile[t], fmaf(b, v, c * tile[t + 2]));   // c*x[i+1], + b*x[i], + a*x[i-1]
    bool edge = i == 0 || i == n - 1;   // boundary: copy x[i]
    out[i] = edge ? v : s;
}
