// examples/saxpy.cu — SAXPY in CUDA C: the twin the README's `ptxgen gen --twin-file` and
// `ptxgen twin` examples compare a PTX kernel with (same name and parameters as
// examples/saxpy.card.md's signature: x, y, a, n).
extern "C" __global__ void saxpy(const float *x, float *y, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
