// saxpy_gridstride: y[i] = a * x[i] + y[i] for i < n (f32, y in place), a grid-stride loop over a
// fixed grid of min(cdiv(n,256), 1056) blocks of 256 (1056 = 8 blocks x 132 SMs on an H200): each
// thread handles i, i+S, i+2S, ... with S = gridDim.x * blockDim.x; every step of a warp touches 32
// consecutive floats.  The main loop is unrolled 4x across the stride: all eight loads of a trip
// issue before the first FMA, 4 independent x/y pairs in flight per thread (with ~2048 threads per
// SM a one-element loop leaves too little memory-level parallelism to saturate HBM3e).
// 32-bit index arithmetic: assumes n + 4*S < 2^32.
extern "C" __global__ void __launch_bounds__(256) saxpy_gridstride(const float* __restrict__ x, float* __restrict__ y, float a, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;   // the first element of this thread
    unsigned int S = blockDim.x * gridDim.x;                  // total threads in the grid
    if (i >= n) return;   // nothing at all for this thread
    const float* px = x + i;   // the pointers advance by byte strides (4*S) instead of recomputing i*4
    float* py = y + i;
    unsigned int S3 = 3 * S;
    if (n > S3) {
        unsigned int lim = n - S3;   // i + 3S < n <=> i < lim
        for (; i < lim; i += 4 * S, px += 4 * S, py += 4 * S) {   // strides 2S, 3S, 4S computed once
            float x0 = __ldg(px), x1 = __ldg(px + S), x2 = __ldg(px + 2 * S), x3 = __ldg(px + 3 * S);
            float y0 = py[0], y1 = py[S], y2 = py[2 * S], y3 = py[3 * S];
            py[0] = fmaf(a, x0, y0); py[S] = fmaf(a, x1, y1); py[2 * S] = fmaf(a, x2, y2); py[3 * S] = fmaf(a, x3, y3);
        }
    }
    // remainder: here i + 3S >= n, so at most 3 elements are left
    for (; i < n; i += S, px += S, py += S) *py = fmaf(a, __ldg(px), *py);
}
