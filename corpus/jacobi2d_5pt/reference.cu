// jacobi2d_5pt: one Jacobi sweep of the 5-point stencil, boundary copied.
// Launch: 32x8 blocks, grid (cdiv(W,32), cdiv(H,8)).
extern "C" __global__ void jacobi2d_5pt(const float* __restrict__ in, float* __restrict__ out,
                                        unsigned int H, unsigned int W)
{
    unsigned int c = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (c >= W || r >= H) return;
    unsigned int k = r * W + c;
    if (r == 0 || c == 0 || r == H - 1 || c == W - 1) {
        out[k] = in[k];
    } else {
        out[k] = 0.25f * ((in[k - W] + in[k + W]) + (in[k - 1] + in[k + 1]));
    }
}
