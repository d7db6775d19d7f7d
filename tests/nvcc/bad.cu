// Fixture: a syntax error nvcc must report (the wrapper forwards its exit code).
__global__ void broken(float *x) {
    x[threadIdx.x] = 1.0f   // missing semicolon
}
