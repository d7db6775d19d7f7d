// A user's twin of a SAXPY kernel: y = a*x + y over n floats.
extern "C" __global__ void saxpy(const float *__restrict__ x, float *y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;   /* one element per thread */
    if (i < n) y[i] = a * x[i] + y[i];
}
