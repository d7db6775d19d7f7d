// conv2d_3x3: "same" 3x3 convolution (cross-correlation), zero padding.
// Launch: 32x8 blocks, grid (cdiv(W,32), cdiv(H,8)); shared tile with halo.
#define BX 32
#define BY 8
extern "C" __global__ void conv2d_3x3(const float* __restrict__ in, const float* __restrict__ w,
                                      float* __restrict__ out, unsigned int H, unsigned int W)
{
    __shared__ float tile[BY + 2][BX + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int c0 = blockIdx.x * BX, r0 = blockIdx.y * BY;
    for (int l = ty * BX + tx; l < (BY + 2) * (BX + 2); l += BX * BY) {
        int tr = l / (BX + 2), tc = l % (BX + 2);
        int gr = r0 + tr - 1, gc = c0 + tc - 1;
        tile[tr][tc] = (gr >= 0 && gr < (int)H && gc >= 0 && gc < (int)W) ? in[(size_t)gr * W + gc] : 0.0f;
    }
    __syncthreads();
    int r = r0 + ty, c = c0 + tx;
    if (r >= (int)H || c >= (int)W) return;
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < 3; i++)
#pragma unroll
        for (int j = 0; j < 3; j++) s += w[3 * i + j] * tile[ty + i][tx + j];
    out[(size_t)r * W + c] = s;
}
