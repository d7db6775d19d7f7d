// PTX: bindless textures/surfaces (.param .u64 handles): tex.1d/2d/3d/a1d/a2d/cube(.level/.grad), tld4 (gather), tex.1d fetch, suld.b.2d/sust.b.1d/2d/3d (.trap/.clamp/.zero), sured, txq/suq via asm, texture/surface object types
#include <cuda_runtime.h>

__global__ void tex_fetches(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3, cudaTextureObject_t tl,
                            cudaTextureObject_t tc, cudaTextureObject_t ti, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float u = (i + 0.5f) / n;
    float a = tex1Dfetch<float>(t1, i);
    float4 b = tex1Dfetch<float4>(t1, i + 1);
    int ib = tex1Dfetch<int>(ti, i);
    float c = tex1D<float>(t1, u);
    float4 d = tex2D<float4>(t2, u, 1.f - u);
    float e = tex3D<float>(t3, u, u, u);
    float f = tex2DLod<float>(t2, u, u, 2.f);
    float g = tex2DGrad<float>(t2, u, u, make_float2(0.1f, 0.f), make_float2(0.f, 0.1f));
    float h = tex1DLayered<float>(tl, u, i & 3);
    float k = tex2DLayered<float>(tl, u, u, i & 7);
    float l = texCubemap<float>(tc, u, 1.f, -u);
    float4 m = tex2Dgather<float4>(t2, u, u, 1);
    float o = tex3DLod<float>(t3, u, u, u, 1.5f);
    uchar4 p = tex2D<uchar4>(t2, u, u);
    int q = tex2D<int>(ti, u, u);
    float r = texCubemapLayered<float>(tc, u, u, u, 2);
    out[i] = a + b.x + b.w + ib + c + d.y + e + f + g + h + k + l + m.z + o + p.x + q + r;
}

__global__ void surf_rw(cudaSurfaceObject_t s1, cudaSurfaceObject_t s2, cudaSurfaceObject_t s3, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float v = surf2Dread<float>(s2, x * 4, y);
    float4 v4 = surf2Dread<float4>(s2, x * 16, y, cudaBoundaryModeClamp);
    uchar4 c4 = surf2Dread<uchar4>(s2, x * 4, y, cudaBoundaryModeZero);
    surf2Dwrite(v * 2.f + v4.x + c4.y, s2, x * 4, y);
    surf2Dwrite(make_float4(v, v, v, v), s2, x * 16, y, cudaBoundaryModeZero);
    surf1Dwrite(v, s1, x * 4);
    short2 sh = surf1Dread<short2>(s1, x * 4, cudaBoundaryModeClamp);
    surf3Dwrite(make_int2(sh.x, sh.y), s3, x * 8, y, 0);
    int z = surf3Dread<int>(s3, x * 4, y, 1);
    surf2DLayeredwrite(z, s2, x * 4, y, 1);
}

__global__ void tex_asm_query(cudaTextureObject_t t, cudaSurfaceObject_t s, int* out)
{
    int w, h, d, nl, ch, sw;
    asm("txq.width.b32 %0, [%1];" : "=r"(w) : "l"(t));
    asm("txq.height.b32 %0, [%1];" : "=r"(h) : "l"(t));
    asm("txq.depth.b32 %0, [%1];" : "=r"(d) : "l"(t));
    asm("txq.num_mipmap_levels.b32 %0, [%1];" : "=r"(nl) : "l"(t));
    asm("txq.channel_order.b32 %0, [%1];" : "=r"(ch) : "l"(t));
    asm("suq.width.b32 %0, [%1];" : "=r"(sw) : "l"(s));
    float r0, r1, r2, r3;
    asm volatile("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3) : "l"(t), "f"(0.5f), "f"(0.5f));
    asm volatile("tld4.r.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3) : "l"(t), "f"(r0), "f"(0.25f));
    asm volatile("sured.b.add.1d.u32.trap [%0, {%1}], %2;" :: "l"(s), "r"(0), "r"(1));
    asm volatile("sust.b.1d.b32.trap [%0, {%1}], {%2};" :: "l"(s), "r"(4), "r"(w));
    unsigned v;
    asm volatile("suld.b.1d.b32.clamp {%0}, [%1, {%2}];" : "=r"(v) : "l"(s), "r"(8));
    out[threadIdx.x] = w + h + d + nl + ch + sw + (int)(r0 + r1 + r2 + r3) + v;
}
