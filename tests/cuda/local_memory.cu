// PTX: .local stack frames (__local_depot, %SP/%SPL, cvta.local), dynamically indexed local arrays, local structs, alloca (PTX alloca / stacksave / stackrestore), st/ld.local
#include <cuda_runtime.h>

struct Big { float m[4][4]; int idx[16]; };

__global__ void local_dynamic_index(const int* __restrict__ idx, const float* __restrict__ in, float* __restrict__ out)
{
    float arr[64];
    int t = threadIdx.x;
    for (int i = 0; i < 64; ++i) arr[i] = in[t * 64 + i];
    float s = 0.f;
    for (int i = 0; i < 16; ++i) s += arr[idx[i] & 63];
    arr[idx[t & 15] & 63] = s;
    out[t] = arr[(t * 7) & 63] + s;
}

__device__ __noinline__ void fill_big(Big* b, int k)
{
    for (int i = 0; i < 16; ++i) { b->m[i / 4][i % 4] = (float)(i * k); b->idx[i] = (i * k) & 15; }
}

__global__ void local_struct(float* out, int k)
{
    Big b;
    fill_big(&b, k + threadIdx.x);
    float s = 0.f;
    for (int i = 0; i < 16; ++i) s += b.m[b.idx[i] / 4][b.idx[i] % 4];
    out[threadIdx.x] = s;
}

__global__ void local_alloca(const int* __restrict__ sizes, float* __restrict__ out)
{
    int n = sizes[threadIdx.x] & 31;
    float* buf = static_cast<float*>(alloca((n + 1) * sizeof(float)));
    for (int i = 0; i <= n; ++i) buf[i] = (float)i * 0.5f;
    float s = 0.f;
    for (int i = 0; i <= n; ++i) s += buf[(i * 5) % (n + 1)];
    out[threadIdx.x] = s;
}

__global__ void local_asm(float* out)
{
    float r;
    asm volatile("{\n\t.local .align 16 .b8 buf[64];\n\t.reg .u64 a;\n\tmov.u64 a, buf;\n\t"
                 "st.local.f32 [a], %1;\n\tst.local.v2.f32 [a+8], {%1, %1};\n\tld.local.f32 %0, [a+12];\n\t}"
                 : "=f"(r) : "f"((float)threadIdx.x));
    out[threadIdx.x] = r;
}
