// sobel_magnitude: |grad| from the 3x3 Sobel operators, 0 on the 1-pixel border.
extern "C" __global__ void sobel_magnitude(const float* __restrict__ img, float* __restrict__ out,
                                           unsigned int H, unsigned int W)
{
    unsigned int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= H || c >= W) return;
    size_t k = (size_t)r * W + c;
    if (r == 0 || c == 0 || r == H - 1 || c == W - 1) { out[k] = 0.0f; return; }
    const float* u = img + k - W;   // row above
    const float* m = img + k;
    const float* d = img + k + W;   // row below
    float gx = (u[1] - u[-1]) + 2.0f * (m[1] - m[-1]) + (d[1] - d[-1]);
    float gy = (d[-1] - u[-1]) + 2.0f * (d[0] - u[0]) + (d[1] - u[1]);
    out[k] = sqrtf(gx * gx + gy * gy);
}
