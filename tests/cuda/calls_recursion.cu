// PTX: .func with .param args/returns (scalars, structs by value, arrays, vectors), call.uni sequences with {} param scopes, recursion (stack frames, %SP), tail-recursion, many-arg calls, .noreturn, __forceinline__ vs __noinline__, .pragma "nounroll"
#include <cuda_runtime.h>

struct Vec3 { float x, y, z; };
struct Pair { double a; int b; char c; };
struct Large { int v[20]; double d; };

__device__ __noinline__ Vec3 cross(Vec3 a, Vec3 b)
{
    return Vec3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

__device__ __noinline__ Pair make_pair_dev(double a, int b, char c) { return Pair{a * 2.0, b + 1, (char)(c ^ 1)}; }

__device__ __noinline__ Large make_large(int k)
{
    Large l;
    for (int i = 0; i < 20; ++i) l.v[i] = k * i;
    l.d = k * 0.5;
    return l;
}

__device__ __noinline__ int sum_large(Large l) { int s = 0; for (int i = 0; i < 20; ++i) s += l.v[i]; return s + (int)l.d; }

__device__ __noinline__ float4 scale4(float4 v, float s) { return make_float4(v.x * s, v.y * s, v.z * s, v.w * s); }

__device__ __noinline__ double many_args(char a, short b, int c, long long d, float e, double f, unsigned char g, unsigned short h,
                                         unsigned i, unsigned long long j, float k, double l, int* m, bool n)
{
    return a + b + c + d + e + f + g + h + i + j + k + l + (m ? *m : 0) + n;
}

__device__ __noinline__ void out_param(int* a, float* b, int k) { *a = k * 3; *b = k * 0.25f; }

__device__ __noinline__ int factorial(int n) { return n <= 1 ? 1 : n * factorial(n - 1); }
__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ int ackermann(int m, int n)
{
    if (m == 0) return n + 1;
    if (n == 0) return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}
__device__ __noinline__ int is_odd(int n);
__device__ __noinline__ int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
__device__ __noinline__ int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }

__device__ __noinline__ void recurse_local(int depth, float* acc)
{
    float buf[8];
    for (int i = 0; i < 8; ++i) buf[i] = depth * (float)i;
    if (depth > 0) recurse_local(depth - 1, acc);
    *acc += buf[depth & 7];
}

__device__ __noinline__ void noreturn_fail(int code) { __trap(); }

__device__ __noinline__ void void_func(int* p) { p[threadIdx.x] = 0; }

__global__ void calls_kernel(const float* __restrict__ in, float* __restrict__ out, int* __restrict__ iout, int n)
{
    int t = threadIdx.x;
    Vec3 a{in[t], in[t + 1], in[t + 2]}, b{in[t + 3], in[t + 4], in[t + 5]};
    Vec3 c = cross(a, b);
    Pair p = make_pair_dev(c.x, t, (char)t);
    Large l = make_large(t);
    float4 v = scale4(make_float4(c.x, c.y, c.z, 1.f), 2.f);
    int ia; float fb;
    out_param(&ia, &fb, t);
    double m = many_args((char)t, (short)t, t, (long long)t << 33, 1.5f, 2.5, 3, 4, 5u, 6ull, 7.f, 8.0, &ia, t & 1);
    float acc = 0.f;
    recurse_local(n & 15, &acc);
    if (n < 0) noreturn_fail(n);
    void_func(iout);
    out[t] = c.x + c.y + c.z + (float)p.a + p.b + p.c + v.x + v.w + ia + fb + (float)m + acc + sum_large(l);
    iout[t + 64] = factorial(n & 7) + fib(n & 15) + ackermann(2, n & 3) + is_even(n & 31);
}
