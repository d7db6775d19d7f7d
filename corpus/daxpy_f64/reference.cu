// daxpy_f64: y[i] = a*x[i] + y[i] in double precision, one thread per element.
extern "C" __global__ void daxpy_f64(const double* __restrict__ x, double* __restrict__ y,
                                     double a, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
