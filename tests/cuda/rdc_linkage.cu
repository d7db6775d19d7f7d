// PTX: linkage directives under -rdc=true: .extern .global/.const/.shared vars, .extern .func prototypes (call to functions defined in other TUs), .weak .func / .weak .global (attribute weak, inline/template), .visible vs internal (static) symbols, extern "C" names; without -rdc the extern parts compile out
#include <cuda_runtime.h>

#ifdef __CUDACC_RDC__
extern __device__ int ext_counter;
extern __device__ float ext_table[];
extern __constant__ int ext_const[16];
extern __device__ int ext_func(int x);
extern "C" __device__ float ext_c_func(float x, float y);
extern __device__ void ext_void(int* p);
#endif

__device__ __attribute__((weak)) int weak_var = 7;
__device__ __attribute__((weak)) int weak_func(int x) { return x * 3; }
extern "C" __device__ __noinline__ int c_linkage_func(int x) { return x ^ 0x5a; }
static __device__ __noinline__ int internal_func(int x) { return x + 11; }
__device__ __noinline__ int visible_func(int x) { return x - 11; }
inline __device__ __noinline__ int inline_noinline(int x) { return x * x; }
__device__ int visible_var = 1;
static __device__ int internal_var = 2;
__device__ int uninit_var;
__device__ int uninit_array[128];

__global__ void rdc_kernel(int* out, float* fout)
{
    int t = threadIdx.x;
    int r = weak_func(t) + weak_var + c_linkage_func(t) + internal_func(t) + visible_func(t) + inline_noinline(t);
    r += visible_var + internal_var + uninit_var + uninit_array[t & 127];
#ifdef __CUDACC_RDC__
    r += ext_func(t) + ext_counter + ext_const[t & 15];
    atomicAdd(&ext_counter, 1);
    ext_void(out);
    fout[t] = ext_c_func(ext_table[t], (float)r);
#endif
    out[t] = r;
}

extern "C" __global__ void c_named_kernel(int* out) { out[threadIdx.x] = c_linkage_func(threadIdx.x); }
