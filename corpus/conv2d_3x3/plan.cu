// conv2d_3x3: "same" 2D 3x3 convolution (cross-correlation) with zero padding on an H x W
// row-major f32 image: out[r][c] = sum over i, j in 0..2 of w[3*i + j] * in[r+i-1][c+j-1] (0
// outside); the 9 taps are an input buffer.  32x8 thread blocks (.reqntid 32, 8, 1), one output per
// thread.  Each block stages a (8+2) x (32+2) input tile in static shared memory, loaded by the
// 256 threads in two rounds of linear indices l (tile row l/34, column l%34), so each warp's loads
// are contiguous row pieces; the taps load into registers before the barrier, overlapping the tile.
extern "C" __global__ void conv2d_3x3(const float* __restrict__ in, const float* __restrict__ w, float* __restrict__ out, unsigned int H, unsigned int W)
{
    __shared__ float tile[10][34];   // the block's outputs plus a one-pixel halo, zero outside the image
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    unsigned c0 = blockIdx.x * 32, r0 = blockIdx.y * 8;   // the block's first column and row
    unsigned l = ty * 32 + tx;   // the linear tile index of round 1 (round 2: l + 256)
    float* t = &tile[0][0];
    // ---- tile round 1: l in [0,256) ----
    unsigned tr = l / 34, tc = l - tr * 34;        // tile row and column
    unsigned gr = r0 + tr - 1, gc = c0 + tc - 1;   // u32: -1 wraps to above H and W
    t[l] = gr < H && gc < W ? __ldg(&in[gr * W + gc]) : 0.0f;
    // ---- tile round 2: l + 256 in [256,340), i.e. l < 84 ----
    if (l < 84) {
        unsigned l2 = l + 256, tr2 = l2 / 34, tc2 = l2 - tr2 * 34;
        unsigned gr2 = r0 + tr2 - 1, gc2 = c0 + tc2 - 1;
        t[l2] = gr2 < H && gc2 < W ? __ldg(&in[gr2 * W + gc2]) : 0.0f;
    }
    // ---- the 9 taps: the same address across the warp (one broadcast each) ----
    float w0 = __ldg(&w[0]), w1 = __ldg(&w[1]), w2 = __ldg(&w[2]), w3 = __ldg(&w[3]), w4 = __ldg(&w[4]);
    float w5 = __ldg(&w[5]), w6 = __ldg(&w[6]), w7 = __ldg(&w[7]), w8 = __ldg(&w[8]);
    __syncthreads();
    // ---- output (r, c) = (r0 + ty, c0 + tx) ----
    unsigned r = r0 + ty, c = c0 + tx;
    if (r >= H || c >= W) return;
    const float* p = &tile[ty][tx];   // tile element (ty+i, tx+j) is p[34*i + j]: conflict-free
    float a0 = p[0], a1 = p[1], a2 = p[2], a3 = p[34], a4 = p[35], a5 = p[36], a6 = p[68], a7 = p[69], a8 = p[70];
    float s = w0 * a0;
    s = fmaf(w1, a1, s); s = fmaf(w2, a2, s); s = fmaf(w3, a3, s); s = fmaf(w4, a4, s);
    s = fmaf(w5, a5, s); s = fmaf(w6, a6, s); s = fmaf(w7, a7, s); s = fmaf(w8, a8, s);
    out[r * W + c] = s;
}
