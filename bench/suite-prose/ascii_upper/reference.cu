// ascii_upper: dst = src with 'a'..'z' mapped to 'A'..'Z'.
extern "C" __global__ void ascii_upper(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst,
                                       unsigned int nbytes)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nbytes) return;
    unsigned char c = src[i];
    dst[i] = (unsigned char)(c - 'a' < 26u ? c - 32 : c);
}
