extern "C" __global__ void bad(float **x, int n) { }
