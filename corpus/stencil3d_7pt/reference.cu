// stencil3d_7pt: 3D 7-point stencil, faces copied.  Launch: 32x8x1 blocks,
// grid (cdiv(W,32), cdiv(H,8), D).
extern "C" __global__ void stencil3d_7pt(const float* __restrict__ in, float* __restrict__ out,
                                         float c0, float c1,
                                         unsigned int D, unsigned int H, unsigned int W)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned int z = blockIdx.z;
    if (x >= W || y >= H || z >= D) return;
    unsigned int P = H * W;
    unsigned int k = (z * H + y) * W + x;
    float c = in[k];
    if (x == 0 || y == 0 || z == 0 || x == W - 1 || y == H - 1 || z == D - 1) {
        out[k] = c;
        return;
    }
    float s = (in[k - 1] + in[k + 1]) + (in[k - W] + in[k + W]) + (in[k - P] + in[k + P]);
    out[k] = c0 * c + c1 * s;
}
