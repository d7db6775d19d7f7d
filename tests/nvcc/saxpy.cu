// Fixture for tests/nvcc_wrapper.sh: two kernels, one with C++ linkage.
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void scale_add(double *out, const double *in, double s, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * s + out[i];
}

int main() { return 0; }
