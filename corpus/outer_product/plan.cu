// outer_product: C[i][j] = x[i] * y[j]; x has m elements, y has n, C is m x n row-major f32.
// Grid (cdiv(n,256), m), block 256: blockIdx.y picks the row i, each thread one column j.
// Store-bound: x[i] is one broadcast load per warp, y[j] and the store are coalesced; the
// correctly rounded product is bit-exact against a double reference.
extern "C" __global__ void outer_product(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ C, unsigned m, unsigned n)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    unsigned i = blockIdx.y;   // i < m by the launch rule
    float xi = __ldg(&x[i]);   // broadcast within the warp
    float yj = __ldg(&y[j]);   // coalesced
    float c = __fmul_rn(xi, yj);   // not contracted: one rounding of the product
    C[(size_t)i * n + j] = c;   // coalesced store
}
