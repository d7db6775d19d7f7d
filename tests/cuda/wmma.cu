// PTX: wmma.load.{a,b,c}.sync.aligned / wmma.mma.sync.aligned / wmma.store.d for f16/f32 (m16n16k16, m32n8k16, m8n32k16), s8/u8 (sm_72), s4/u4/b1 (sm_75), tf32 m16n16k8 / bf16 / f64 m8n8k4 (sm_80); row/col layouts, strides
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

__global__ void wmma_f16_f32(const half* __restrict__ a, const half* __restrict__ b, const float* __restrict__ c, float* __restrict__ d, int ld)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fa, a, ld);
    wmma::load_matrix_sync(fb, b, ld);
    wmma::load_matrix_sync(fc, c, ld, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    for (int i = 0; i < fc.num_elements; ++i) fc.x[i] *= 0.5f;
    wmma::store_matrix_sync(d, fc, ld, wmma::mem_col_major);
}

__global__ void wmma_f16_f16_shapes(const half* __restrict__ a, const half* __restrict__ b, half* __restrict__ d)
{
    __shared__ half sa[32 * 16];
    for (int i = threadIdx.x; i < 32 * 16; i += 32) sa[i] = a[i];
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 32, 8, 16, half> fc;
    wmma::fill_fragment(fc, __float2half(0.f));
    wmma::load_matrix_sync(fa, sa, 32);
    wmma::load_matrix_sync(fb, b, 8);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);

    wmma::fragment<wmma::matrix_a, 8, 32, 16, half, wmma::row_major> ga;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, half, wmma::col_major> gb;
    wmma::fragment<wmma::accumulator, 8, 32, 16, float> gc;
    wmma::fill_fragment(gc, 1.f);
    wmma::load_matrix_sync(ga, a, 16);
    wmma::load_matrix_sync(gb, b, 16);
    wmma::mma_sync(gc, ga, gb, gc);
    wmma::fragment<wmma::accumulator, 8, 32, 16, half> gh;
    for (int i = 0; i < gh.num_elements; ++i) gh.x[i] = __float2half(gc.x[i]);
    wmma::store_matrix_sync(d + 256, gh, 32, wmma::mem_row_major);
}

__global__ void wmma_int(const signed char* __restrict__ a, const unsigned char* __restrict__ b, int* __restrict__ d)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
    wmma::fill_fragment(fc, 0);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, reinterpret_cast<const signed char*>(b), 16);
    wmma::mma_sync(fc, fa, fb, fc, true);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::row_major> ua;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::col_major> ub;
    wmma::load_matrix_sync(ua, b, 16);
    wmma::load_matrix_sync(ub, b, 16);
    wmma::mma_sync(fc, ua, ub, fc);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}

__global__ void wmma_subbyte(const void* __restrict__ a, const void* __restrict__ b, int* __restrict__ d)
{
    using namespace wmma::experimental;
    wmma::fragment<wmma::matrix_a, 8, 8, 32, precision::s4, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 32, precision::s4, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 32, int> fc;
    wmma::fill_fragment(fc, 0);
    wmma::load_matrix_sync(fa, a, 32);
    wmma::load_matrix_sync(fb, b, 32);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::fragment<wmma::matrix_a, 8, 8, 32, precision::u4, wmma::row_major> ua;
    wmma::fragment<wmma::matrix_b, 8, 8, 32, precision::u4, wmma::col_major> ub;
    wmma::load_matrix_sync(ua, a, 32);
    wmma::load_matrix_sync(ub, b, 32);
    wmma::mma_sync(fc, ua, ub, fc);
    wmma::fragment<wmma::matrix_a, 8, 8, 128, precision::b1, wmma::row_major> ba;
    wmma::fragment<wmma::matrix_b, 8, 8, 128, precision::b1, wmma::col_major> bb;
    wmma::load_matrix_sync(ba, a, 128);
    wmma::load_matrix_sync(bb, b, 128);
    wmma::fragment<wmma::accumulator, 8, 8, 128, int> bc;
    wmma::fill_fragment(bc, 0);
    wmma::bmma_sync(bc, ba, bb, bc, bmmaBitOpXOR, bmmaAccumulateOpPOPC);
#if __CUDA_ARCH__ >= 800
    wmma::bmma_sync(bc, ba, bb, bc, bmmaBitOpAND, bmmaAccumulateOpPOPC);
#endif
    wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);
    wmma::store_matrix_sync(d + 64, bc, 8, wmma::mem_col_major);
}

__global__ void wmma_sm80(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                          const __nv_bfloat16* __restrict__ ba, const __nv_bfloat16* __restrict__ bb, const double* __restrict__ da, double* __restrict__ dd)
{
#if __CUDA_ARCH__ >= 800
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::fill_fragment(fc, 0.f);
    wmma::load_matrix_sync(fa, a, 8);
    wmma::load_matrix_sync(fb, b, 8);
    for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);

    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> ha;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> hb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> hc;
    wmma::fill_fragment(hc, 0.f);
    wmma::load_matrix_sync(ha, ba, 16);
    wmma::load_matrix_sync(hb, bb, 16);
    wmma::mma_sync(hc, ha, hb, hc);
    wmma::store_matrix_sync(c + 256, hc, 16, wmma::mem_col_major);

    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> xa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> xb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> xc;
    wmma::load_matrix_sync(xa, da, 4);
    wmma::load_matrix_sync(xb, da + 32, 4);
    wmma::load_matrix_sync(xc, dd, 8, wmma::mem_row_major);
    wmma::mma_sync(xc, xa, xb, xc);
    wmma::store_matrix_sync(dd, xc, 8, wmma::mem_row_major);
#else
    c[threadIdx.x] = a[threadIdx.x] + b[threadIdx.x];
#endif
}
