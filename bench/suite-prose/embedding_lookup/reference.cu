// embedding_lookup: out[t][d] = table[ids[t]][d], one thread per output element.
extern "C" __global__ void embedding_lookup(const float* __restrict__ table, const int* __restrict__ ids,
                                            float* __restrict__ out, unsigned int vocab, unsigned int dim,
                                            unsigned int ntok)
{
    size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (size_t)ntok * dim) return;
    size_t t = e / dim, d = e % dim;
    out[e] = table[(size_t)ids[t] * dim + d];
}
