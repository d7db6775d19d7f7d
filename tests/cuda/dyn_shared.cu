// PTX: extern .shared dynamic arrays (.extern .shared .align N .b8 name[]), multiple aliased dynamic views, cvta.shared, isspacep, %dynamic_smem_size, shared atomics on dynamic smem
#include <cuda_runtime.h>

extern __shared__ float dyn_f[];

__global__ void dyn_scan(const float* __restrict__ in, float* __restrict__ out, int n)
{
    int t = threadIdx.x;
    dyn_f[t] = (t < n) ? in[t] : 0.f;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off <<= 1) {
        float v = (t >= off) ? dyn_f[t - off] : 0.f;
        __syncthreads();
        dyn_f[t] += v;
        __syncthreads();
    }
    if (t < n) out[t] = dyn_f[t];
}

__global__ void dyn_multi_view(const double* __restrict__ in, double* __restrict__ out, int n)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    double* d = reinterpret_cast<double*>(smem_raw);
    int* counts = reinterpret_cast<int*>(smem_raw + blockDim.x * sizeof(double));
    int t = threadIdx.x;
    if (t == 0) counts[0] = 0;
    d[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    if (d[t] > 0.0) atomicAdd(&counts[0], 1);
    __syncthreads();
    unsigned dsz, tsz;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dsz));
    asm("mov.u32 %0, %%total_smem_size;" : "=r"(tsz));
    int shared_flag = __isShared(d + t) + __isGlobal(out) + __isLocal(&t) + __isConstant(in);
    size_t sa = __cvta_generic_to_shared(d + t);
    out[blockIdx.x * blockDim.x + t] = d[(t + 1) % blockDim.x] + counts[0] + dsz + tsz + shared_flag + (double)sa;
}

template <typename T>
__global__ void dyn_template(T* data)
{
    extern __shared__ __align__(sizeof(T)) unsigned char tsmem[];
    T* s = reinterpret_cast<T*>(tsmem);
    s[threadIdx.x] = data[threadIdx.x];
    __syncthreads();
    data[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}
template __global__ void dyn_template<int>(int*);
template __global__ void dyn_template<double2>(double2*);
template __global__ void dyn_template<char>(char*);
