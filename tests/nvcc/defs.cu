// Fixture: needs -I tests/nvcc/inc and -DFACTOR=... for the baseline -ptx run too.
#include "factor.h"
extern "C" __global__ void scale(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= FACTOR;
}
