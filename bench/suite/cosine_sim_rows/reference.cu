// cosine_sim_rows: out[r] = <a_r,b_r> / max(|a_r||b_r|, eps); one warp per row pair.
extern "C" __global__ void cosine_sim_rows(const float* __restrict__ a, const float* __restrict__ b,
                                           float* __restrict__ out, float eps,
                                           unsigned int rows, unsigned int cols)
{
    unsigned int row = blockIdx.x * 8 + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* ar = a + (size_t)row * cols;
    const float* br = b + (size_t)row * cols;
    float d = 0.0f, na = 0.0f, nb = 0.0f;
    for (unsigned int j = lane; j < cols; j += 32) {
        float u = ar[j], v = br[j];
        d += u * v; na += u * u; nb += v * v;
    }
    for (int o = 16; o > 0; o >>= 1) {
        d += __shfl_xor_sync(0xffffffffu, d, o);
        na += __shfl_xor_sync(0xffffffffu, na, o);
        nb += __shfl_xor_sync(0xffffffffu, nb, o);
    }
    if (lane == 0) out[row] = d / fmaxf(sqrtf(na) * sqrtf(nb), eps);
}
