// stencil3d_7pt: 3D 7-point stencil on a D x H x W f32 volume (x fastest):
// interior out = c0*in[z][y][x] + c1*(in[z][y][x-1] + in[z][y][x+1] + in[z][y-1][x] + in[z][y+1][x]
//                                     + in[z-1][y][x] + in[z+1][y][x]);
// points on any face of the volume are copied unchanged.
// Blocks of 32x8x1 threads (.maxntid 32, 8, 1), one output per thread, grid (cdiv(W,32), cdiv(H,8), D):
// blockIdx.z is the plane.  A warp reads 32 consecutive x of one row for each of its 7 loads
// (coalesced 128-byte segments); reuse between neighbouring rows and planes comes from L1/L2.
extern "C" __global__ void stencil3d_7pt(const float* __restrict__ in, float* __restrict__ out, float c0, float c1, unsigned int D, unsigned int H, unsigned int W)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned int z = blockIdx.z;   // grid.z == D
    if (x >= W || y >= H || z >= D) return;
    unsigned int k = (z * H + y) * W + x;
    const float* pin = in + k;   // &in[k]
    float* pout = out + k;       // &out[k]
    float c = __ldg(pin);        // the centre, needed on both paths
    bool interior = x != 0 && y != 0 && z != 0 && x + 1 < W && y + 1 < H && z + 1 < D;
    if (!interior) {   // a point on a face: copy
        *pout = c;
        return;
    }
    size_t row = W, plane = H * W;   // the row and plane pitch (elements)
    const float* ym = pin - row, * yp = pin + row;
    const float* zm = pin - plane, * zp = pin + plane;
    float vxm = __ldg(pin - 1), vxp = __ldg(pin + 1);
    float vym = __ldg(ym), vyp = __ldg(yp);
    float vzm = __ldg(zm), vzp = __ldg(zp);
    float s = ((vxm + vxp) + (vym + vyp)) + (vzm + vzp);   // the sum of the 6 neighbours
    *pout = c1 * s + c0 * c;   // c0*centre, + c1*sum
}
