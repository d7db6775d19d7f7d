// pcg_hash: out[i] = pcg_hash(i + seed) (Jarzynski & Olano 2020), u32 wrapping arithmetic.
extern "C" __global__ void pcg_hash(unsigned int* __restrict__ out, unsigned int seed, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int state = (i + seed) * 747796405u + 2891336453u;
    unsigned int word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    out[i] = (word >> 22u) ^ word;
}
