// PTX: grid-stride loops, vectorized ld/st.global.v2/.v4 (float4, int4, double2, short4, uchar4, longlong2), unrolled loops, __restrict__ -> ld.global.nc
#include <cuda_runtime.h>

__global__ void saxpy_float4(int n, float a, const float4* __restrict__ x, float4* __restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n / 4; i += blockDim.x * gridDim.x) {
        float4 xv = x[i], yv = y[i];
        yv.x = fmaf(a, xv.x, yv.x); yv.y = fmaf(a, xv.y, yv.y);
        yv.z = fmaf(a, xv.z, yv.z); yv.w = fmaf(a, xv.w, yv.w);
        y[i] = yv;
    }
}

__global__ void copy_int4(const int4* __restrict__ src, int4* __restrict__ dst, size_t n)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        int4 v = src[i];
        v.x ^= v.w; v.y += v.z;
        dst[i] = v;
    }
}

__global__ void daxpy_double2(long long n, double a, const double2* __restrict__ x, double2* __restrict__ y)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {
        double2 xv = x[i], yv = y[i];
        yv.x += a * xv.x; yv.y += a * xv.y;
        y[i] = yv;
    }
}

__global__ void small_vectors(const short4* __restrict__ s4, const uchar4* __restrict__ c4, const longlong2* __restrict__ l2,
                              const char2* __restrict__ c2, const ushort2* __restrict__ u2, const float2* __restrict__ f2,
                              short4* os4, uchar4* oc4, longlong2* ol2, float2* of2, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    short4 s = s4[i]; uchar4 c = c4[i]; longlong2 l = l2[i]; char2 cc = c2[i]; ushort2 uu = u2[i]; float2 ff = f2[i];
    s.x += c.x; s.y -= c.y; s.z *= (short)cc.x; s.w = (short)(s.w | uu.x);
    c.x = (unsigned char)(c.x + uu.y); c.w = (unsigned char)cc.y;
    l.x += s.x; l.y ^= (long long)ff.x;
    ff.x += (float)l.y; ff.y *= 2.0f;
    os4[i] = s; oc4[i] = c; ol2[i] = l; of2[i] = ff;
}

template <int UNROLL>
__global__ void unrolled_sum(const float* __restrict__ x, float* __restrict__ y, int n)
{
    float acc[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc[u] = 0.f;
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
    for (int i = base; i + UNROLL <= n; i += gridDim.x * blockDim.x * UNROLL) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) acc[u] += x[i + u];
    }
    float s = 0.f;
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) s += acc[u];
    y[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template __global__ void unrolled_sum<4>(const float*, float*, int);
template __global__ void unrolled_sum<8>(const float*, float*, int);

__global__ void no_unroll(const float* __restrict__ x, float* __restrict__ y, int n)
{
    float s = 0.f;
#pragma unroll 1
    for (int i = threadIdx.x; i < n; i += blockDim.x) s += x[i] * x[i];
    y[threadIdx.x] = s;
}

__global__ void vec_asm(float* p, unsigned long long* q)
{
    float a, b, c, d;
    asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "l"(p));
    asm volatile("st.global.v2.f32 [%0+8], {%1, %2};" :: "l"(p), "f"(a + b), "f"(c + d));
    unsigned long long x, y;
    asm volatile("ld.global.v2.u64 {%0, %1}, [%2];" : "=l"(x), "=l"(y) : "l"(q));
    asm volatile("st.global.v2.u64 [%0+16], {%1, %2};" :: "l"(q), "l"(y), "l"(x));
    asm volatile("st.global.v4.b32 [%0+32], {%1, %1, %1, %1};" :: "l"(p), "r"(7));
}
