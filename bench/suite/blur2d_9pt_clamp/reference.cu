// blur2d_9pt_clamp: 3x3 binomial blur with clamp-to-edge borders; 16x16 blocks, 18x18 shared tile.
extern "C" __global__ void blur2d_9pt_clamp(const float* __restrict__ in, float* __restrict__ out,
                                            unsigned int H, unsigned int W)
{
    __shared__ float t[18][18];
    int c0 = blockIdx.x * 16, r0 = blockIdx.y * 16;
    int tid = threadIdx.y * 16 + threadIdx.x;
    for (int k = tid; k < 18 * 18; k += 256) {
        int rr = r0 + k / 18 - 1, cc = c0 + k % 18 - 1;
        rr = min(max(rr, 0), (int)H - 1);
        cc = min(max(cc, 0), (int)W - 1);
        t[k / 18][k % 18] = in[(size_t)rr * W + cc];
    }
    __syncthreads();
    int r = r0 + threadIdx.y, c = c0 + threadIdx.x;
    if (r >= (int)H || c >= (int)W) return;
    int y = threadIdx.y + 1, x = threadIdx.x + 1;
    float s = (t[y - 1][x - 1] + t[y - 1][x + 1] + t[y + 1][x - 1] + t[y + 1][x + 1])
            + 2.0f * (t[y - 1][x] + t[y + 1][x] + t[y][x - 1] + t[y][x + 1]) + 4.0f * t[y][x];
    out[(size_t)r * W + c] = s * 0.0625f;
}
