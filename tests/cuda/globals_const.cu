// PTX: .const arrays with initializers, .global variables with initializers (arrays, structs, nested aggregates, pointers -> generic() initializers, strings), .align, __managed__ (.attribute(.managed)), ld.const, ld.global of module vars
#include <cuda_runtime.h>
#include <cuda_fp16.h>

__constant__ float c_coeffs[16] = {1.f, 0.5f, 0.25f, 0.125f, -1.f, 3.14159f, 2.71828f, 1e-10f, 1e10f, 0.f, -0.f, 7.f, 8.f, 9.f, 10.f, 11.f};
__constant__ double c_dcoeffs[4] = {1.0, -2.5, 1e300, 5e-324};
__constant__ int c_table[8] = {0, 1, 1, 2, 3, 5, 8, 13};
__constant__ char c_str[] = "hello ptx";
__constant__ unsigned long long c_u64[3] = {0xdeadbeefcafebabeull, 1ull, ~0ull};
__constant__ short c_short[5] = {-1, 2, -3, 4, -5};
__constant__ __half c_half[2];
__constant__ float c_uninit[64];

struct Params { int n; float scale; double bias; char tag[6]; short s; };
__constant__ Params c_params = {42, 1.5f, -0.25, "abcde", 7};

struct Node { int value; const Node* next; };
__device__ int g_array[10] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
__device__ float g_matrix[2][3] = {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}};
__device__ Params g_params = {1, 2.f, 3.0, "xyz", -1};
__device__ Node g_tail = {3, nullptr};
__device__ Node g_mid[2] = {{2, &g_tail}, {5, nullptr}};
__device__ Node g_nodes[1] = {{1, &g_mid[0]}};
__device__ int* g_ptr = &g_array[3];
__device__ const char* g_msg = "device string literal";
__device__ unsigned char g_bytes[7] = {1, 2, 3, 4, 5, 6, 7};
__device__ __align__(64) float g_aligned[16];
__device__ double g_scalar = 6.02214076e23;
__device__ long long g_ll = -9000000000000000000ll;
__device__ bool g_flag = true;
__device__ __managed__ int m_counter = 5;
__device__ volatile int g_volatile = 3;

static __device__ int s_internal[4] = {1, 2, 3, 4};
__device__ float (*g_fp_table)[3] = g_matrix;

__global__ void use_globals(float* out, int k)
{
    int t = threadIdx.x;
    float v = c_coeffs[t & 15] * c_params.scale + (float)c_dcoeffs[t & 3] + (float)c_table[k & 7] + c_str[t % 9];
    v += (float)c_u64[k % 3] + c_short[t % 5] + __half2float(c_half[t & 1]) + c_uninit[t & 63];
    v += (float)g_array[t % 10] + g_matrix[t & 1][t % 3] + g_params.scale + (float)g_params.bias + g_params.tag[t % 6];
    const Node* n = &g_nodes[0];
    while (n) { v += n->value; n = n->next; }
    v += *g_ptr + g_msg[t % 8] + g_bytes[t % 7] + g_aligned[t & 15] + (float)g_scalar + (float)g_ll + (g_flag ? 1.f : 0.f);
    v += s_internal[t & 3] + g_fp_table[1][t % 3] + g_volatile;
    m_counter += 1;
    g_aligned[t & 15] = v;
    out[t] = v;
}
