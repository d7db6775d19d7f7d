// PTX: indirect calls (call.uni (ret), fptr, (args), proto) with .callprototype, function-pointer tables in .global initializers, virtual dispatch (vtables), .calltargets via inline asm
#include <cuda_runtime.h>

typedef float (*unary_fn)(float);
typedef int (*binop_fn)(int, int);

__device__ float f_sq(float x) { return x * x; }
__device__ float f_neg(float x) { return -x; }
__device__ float f_exp(float x) { return __expf(x); }
__device__ int b_add(int a, int b) { return a + b; }
__device__ int b_mul(int a, int b) { return a * b; }

__device__ unary_fn g_unary_table[3] = {f_sq, f_neg, f_exp};
__constant__ binop_fn c_binop_table[2] = {b_add, b_mul};

__global__ void call_through_table(const float* __restrict__ in, const int* __restrict__ sel, float* __restrict__ out)
{
    int t = threadIdx.x;
    unary_fn f = g_unary_table[sel[t] % 3];
    binop_fn g = c_binop_table[sel[t] & 1];
    out[t] = f(in[t]) + (float)g(t, sel[t]);
}

struct Shape {
    __device__ virtual float area() const = 0;
    __device__ virtual float scale(float s) { return area() * s; }
    __device__ virtual ~Shape() {}
};
struct Square : Shape {
    float a;
    __device__ Square(float x) : a(x) {}
    __device__ float area() const override { return a * a; }
};
struct Circle : Shape {
    float r;
    __device__ Circle(float x) : r(x) {}
    __device__ float area() const override { return 3.14159f * r * r; }
    __device__ float scale(float s) override { return area() * s * s; }
};

__global__ void virtual_dispatch(const float* __restrict__ in, float* __restrict__ out)
{
    int t = threadIdx.x;
    Square sq(in[t]);
    Circle ci(in[t] + 1.f);
    Shape* s = (t & 1) ? static_cast<Shape*>(&sq) : static_cast<Shape*>(&ci);
    out[t] = s->area() + s->scale(2.f);
}

__device__ __noinline__ int apply(binop_fn f, int a, int b) { return f(a, b); }

__global__ void pass_function_pointer(int* out, int k)
{
    binop_fn f = (k > 0) ? b_add : b_mul;
    out[threadIdx.x] = apply(f, threadIdx.x, k);
}

__device__ __noinline__ int target_a(int x) { return x + 1; }
__device__ __noinline__ int target_b(int x) { return x * 2; }

__global__ void asm_calltargets(int* out, int k)
{
    int (*fp)(int) = (k & 1) ? target_a : target_b;
    int r;
    asm volatile("{\n\t"
                 ".reg .b32 rv;\n\t"
                 "CT%=: .calltargets _Z8target_ai, _Z8target_bi;\n\t"
                 ".param .b32 pa;\n\t"
                 "st.param.b32 [pa], %2;\n\t"
                 ".param .b32 pr;\n\t"
                 "call (pr), %1, (pa), CT%=;\n\t"
                 "ld.param.b32 %0, [pr];\n\t"
                 "}" : "=r"(r) : "l"(fp), "r"(k));
    out[threadIdx.x] = r;
}
