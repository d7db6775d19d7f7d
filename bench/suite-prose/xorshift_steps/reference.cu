// xorshift_steps: advance every xorshift32 state by `steps` steps (13, 17, 5).
extern "C" __global__ void xorshift_steps(unsigned int* __restrict__ state, unsigned int steps, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int x = state[i];
    for (unsigned int s = 0; s < steps; s++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
    }
    state[i] = x;
}
