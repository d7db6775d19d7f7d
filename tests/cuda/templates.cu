// PTX: C++ templates (mangled .entry/.func names, .weak for inline template functions with -rdc), functors, lambdas (incl. extended __device__ lambdas), variadic templates, constexpr tables, namespaces, operator overloading, namespaced device variables
#include <cuda_runtime.h>
#include <cuda_fp16.h>

namespace ptxgen { namespace detail {
template <typename T> struct Plus { __device__ T operator()(T a, T b) const { return a + b; } };
template <typename T> struct Max { __device__ T operator()(T a, T b) const { return a > b ? a : b; } };
template <typename T> struct Traits { static constexpr int width = sizeof(T); };
} }

template <typename T, typename Op, int BS>
__global__ void block_reduce_t(const T* __restrict__ in, T* __restrict__ out, T init)
{
    __shared__ T s[BS];
    Op op;
    T v = in[blockIdx.x * BS + threadIdx.x];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int k = BS / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] = op(s[threadIdx.x], s[threadIdx.x + k]);
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = op(s[0], init);
}

template __global__ void block_reduce_t<float, ptxgen::detail::Plus<float>, 128>(const float*, float*, float);
template __global__ void block_reduce_t<double, ptxgen::detail::Max<double>, 256>(const double*, double*, double);
template __global__ void block_reduce_t<int, ptxgen::detail::Plus<int>, 64>(const int*, int*, int);
template __global__ void block_reduce_t<unsigned long long, ptxgen::detail::Max<unsigned long long>, 32>(const unsigned long long*, unsigned long long*, unsigned long long);
template __global__ void block_reduce_t<__half, ptxgen::detail::Plus<__half>, 128>(const __half*, __half*, __half);

template <typename F>
__global__ void apply_lambda(float* data, int n, F f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = f(data[i], i);
}

struct Scale { float s; __device__ float operator()(float x, int) const { return x * s; } };
template __global__ void apply_lambda<Scale>(float*, int, Scale);

template <typename... Ts> __device__ __noinline__ auto sum_all(Ts... xs) { return (xs + ... + 0); }

__global__ void variadic(int* out, int a, long long b, short c)
{
    out[threadIdx.x] = (int)sum_all(a, b, c) + (int)sum_all(a, a) + sum_all(c);
}

__device__ constexpr int kTable[8] = {1, 3, 7, 15, 31, 63, 127, 255};
template <int N> struct Pow2 { static constexpr int value = 2 * Pow2<N - 1>::value; };
template <> struct Pow2<0> { static constexpr int value = 1; };

namespace Counter { __device__ int hits = 0; }

struct Complex { float re, im; };
__device__ __forceinline__ Complex operator*(Complex a, Complex b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
__device__ __forceinline__ Complex operator+(Complex a, Complex b) { return {a.re + b.re, a.im + b.im}; }

__global__ void constexpr_and_ops(const Complex* __restrict__ z, Complex* __restrict__ w, int k)
{
    Complex acc{0.f, 0.f};
    for (int i = 0; i < 4; ++i) acc = acc * z[threadIdx.x] + z[i];
    acc.re += kTable[k & 7] + Pow2<10>::value + ptxgen::detail::Traits<double>::width;
    atomicAdd(&Counter::hits, 1);
    w[threadIdx.x] = acc;
}

template <typename T> __device__ __noinline__ T generic_clamp(T x, T lo, T hi) { return x < lo ? lo : (x > hi ? hi : x); }

__global__ void template_funcs(float* f, int* i, double* d)
{
    int t = threadIdx.x;
    f[t] = generic_clamp(f[t], 0.f, 1.f);
    i[t] = generic_clamp(i[t], -5, 5);
    d[t] = generic_clamp(d[t], -1.0, 1.0);
    auto local_lambda = [=](int x) { return x * t + 1; };
    i[t + 32] = local_lambda(i[t]);
}
