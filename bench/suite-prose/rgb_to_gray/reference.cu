// rgb_to_gray: gray = (77 r + 150 g + 29 b + 128) >> 8, rgb interleaved.
extern "C" __global__ void rgb_to_gray(const unsigned char* __restrict__ rgb, unsigned char* __restrict__ gray,
                                       unsigned int npix)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npix) return;
    size_t p = 3 * (size_t)i;
    unsigned int r = rgb[p], g = rgb[p + 1], b = rgb[p + 2];
    gray[i] = (unsigned char)((77u * r + 150u * g + 29u * b + 128u) >> 8);
}
