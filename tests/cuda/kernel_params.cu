// PTX: kernel .param lists with mixed types (.u8/.u16/.u32/.u64/.f32/.f64/.b8 arrays for structs), .align on params, struct/vector/array-in-struct by value, __grid_constant__, ld.param variants, large param space (>256 bytes), bool/char/half params
#include <cuda_fp16.h>
#include <cuda_bf16.h>

struct Small { char c; short s; };
struct Mixed { double d; int i; float f; char tag[5]; };
struct alignas(16) Aligned16 { float v[4]; };
struct WithArray { int data[32]; };
struct Nested { Small s; Mixed m; float2 f2; };

__global__ void many_params(char c, unsigned char uc, short s, unsigned short us, int i, unsigned u, long long ll, unsigned long long ull,
                            float f, double d, bool b, __half h, __nv_bfloat16 bf, float4 f4, double2 d2, int3 i3, char4 c4,
                            Small sm, Mixed mx, Aligned16 a16, Nested ne, int* p, const double* __restrict__ q, double* out)
{
    double r = c + uc + s + us + i + u + (double)ll + (double)ull + f + d + b + __half2float(h) + __bfloat162float(bf);
    r += f4.x + f4.w + d2.x + d2.y + i3.x + i3.z + c4.x + c4.w + sm.c + sm.s + mx.d + mx.i + mx.f + mx.tag[4];
    r += a16.v[0] + a16.v[3] + ne.s.c + ne.m.d + ne.f2.y + p[0] + q[0];
    out[threadIdx.x] = r;
}

__global__ void big_struct_param(WithArray wa, int k, int* out)
{
    out[threadIdx.x] = wa.data[(threadIdx.x + k) & 31];   // dynamic index -> copies param to local or ld.param with address
}

__global__ void grid_constant_big(const __grid_constant__ WithArray wa, int* out)
{
    const int* p = &wa.data[0];
    out[threadIdx.x] = p[threadIdx.x & 31];
}

__global__ void no_params() { __shared__ int x; x = threadIdx.x; __syncthreads(); if (x < 0) __trap(); }

__global__ void array_of_pointers(float* const* __restrict__ ptrs, int n, float* out)
{
    float s = 0.f;
    for (int i = 0; i < n; ++i) s += ptrs[i][threadIdx.x];
    out[threadIdx.x] = s;
}

__device__ __noinline__ Nested pass_nested(Nested n, Mixed m)
{
    n.m.d += m.d; n.s.c ^= m.tag[0]; n.f2.x *= m.f;
    return n;
}

__global__ void nested_calls(Nested n, Mixed m, double* out)
{
    Nested r = pass_nested(n, m);
    out[threadIdx.x] = r.m.d + r.s.c + r.f2.x;
}
