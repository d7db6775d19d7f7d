// stencil1d_5pt: symmetric 5-point stencil, 2-element halo in shared memory.
#define NT 256
extern "C" __global__ void stencil1d_5pt(const float* __restrict__ x, float* __restrict__ out,
                                         float c0, float c1, float c2, unsigned int n)
{
    __shared__ float s[NT + 4];
    int base = blockIdx.x * NT;
    int i = base + threadIdx.x;
    for (int k = threadIdx.x; k < NT + 4; k += NT) {
        int g = base + k - 2;
        s[k] = (g >= 0 && g < (int)n) ? x[g] : 0.0f;
    }
    __syncthreads();
    if (i >= (int)n) return;
    int t = threadIdx.x + 2;
    if (i < 2 || i + 2 >= (int)n) { out[i] = s[t]; return; }
    out[i] = c0 * s[t] + c1 * (s[t - 1] + s[t + 1]) + c2 * (s[t - 2] + s[t + 2]);
}
