// heat3d_varcoef: out = in + kappa*(sum6 - 6*in) inside, faces copied; block 32x8x1.
extern "C" __global__ void heat3d_varcoef(const float* __restrict__ in, const float* __restrict__ kappa,
                                          float* __restrict__ out, unsigned int D, unsigned int H, unsigned int W)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned int z = blockIdx.z;
    if (x >= W || y >= H || z >= D) return;
    size_t P = (size_t)H * W;
    size_t k = ((size_t)z * H + y) * W + x;
    float c = in[k];
    if (x == 0 || y == 0 || z == 0 || x == W - 1 || y == H - 1 || z == D - 1) { out[k] = c; return; }
    float s = (in[k - 1] + in[k + 1]) + (in[k - W] + in[k + W]) + (in[k - P] + in[k + P]);
    out[k] = c + kappa[k] * (s - 6.0f * c);
}
