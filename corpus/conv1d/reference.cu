// conv1d: "same" 1D convolution (cross-correlation) with zero padding.
// Launch: 256 threads, grid cdiv(n,1024), dynamic smem 4*(1024 + 2*R) bytes;
// each block computes 1024 outputs (4 per thread) from a shared window.
#define NT 256
#define PER 4
#define TILE (NT * PER)
extern "C" __global__ void conv1d(const float* __restrict__ x, const float* __restrict__ w,
                                  float* __restrict__ out, unsigned int n, unsigned int R)
{
    extern __shared__ float smem[];
    float* sw = smem;          // R taps
    float* st = smem + R;      // TILE + R - 1 window
    unsigned int t = threadIdx.x;
    unsigned int bs = blockIdx.x * TILE;
    int pad = (int)(R / 2);
    for (unsigned int j = t; j < R; j += NT) sw[j] = w[j];
    for (unsigned int j = t; j < TILE + R - 1; j += NT) {
        long long g = (long long)bs + j - pad;
        st[j] = (g >= 0 && g < (long long)n) ? x[g] : 0.0f;
    }
    __syncthreads();
    float acc[PER] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (unsigned int k = 0; k < R; k++) {
        float wk = sw[k];
#pragma unroll
        for (int q = 0; q < PER; q++) acc[q] += wk * st[t + q * NT + k];
    }
#pragma unroll
    for (int q = 0; q < PER; q++) {
        unsigned int i = bs + t + q * NT;
        if (i < n) out[i] = acc[q];
    }
}
