// daxpy_f64_gridstride: y = a*x + y in double, grid-stride loop.
extern "C" __global__ void daxpy_f64_gridstride(const double* __restrict__ x, double* __restrict__ y,
                                                double a, unsigned int n)
{
    unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = fma(a, x[i], y[i]);
}
