// life_step: one Game of Life generation on an H x W torus of 0/1 bytes.
extern "C" __global__ void life_step(const unsigned char* __restrict__ grid, unsigned char* __restrict__ next,
                                     unsigned int H, unsigned int W)
{
    unsigned int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= H || c >= W) return;
    unsigned int ru = (r + H - 1) % H, rd = (r + 1) % H, cl = (c + W - 1) % W, cr = (c + 1) % W;
    const unsigned char *up = grid + (size_t)ru * W, *mid = grid + (size_t)r * W, *dn = grid + (size_t)rd * W;
    int cnt = up[cl] + up[c] + up[cr] + mid[cl] + mid[cr] + dn[cl] + dn[c] + dn[cr];
    next[(size_t)r * W + c] = (unsigned char)(cnt == 3 || (cnt == 2 && mid[c]));
}
