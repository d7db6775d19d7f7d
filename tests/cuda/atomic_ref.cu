// PTX: libcu++ cuda::atomic_ref / cuda::atomic with memory orders+scopes -> atom.{relaxed,acquire,release,acq_rel}.{cta,gpu,sys}, ld.acquire, st.release, fence.{sc,acq_rel}.{cta,gpu,sys}, cuda::atomic_thread_fence, spin locks
#include <cuda/atomic>
#include <cuda/std/atomic>

__global__ void atomic_ref_orders(int* p, unsigned long long* q, float* f, double* d, int* out)
{
    int t = threadIdx.x;
    cuda::atomic_ref<int, cuda::thread_scope_device> dev(p[0]);
    cuda::atomic_ref<int, cuda::thread_scope_block> blk(p[1]);
    cuda::atomic_ref<int, cuda::thread_scope_system> sys(p[2]);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> dev64(q[0]);
    cuda::atomic_ref<float, cuda::thread_scope_device> fdev(f[0]);
    cuda::atomic_ref<double, cuda::thread_scope_system> dsys(d[0]);
    int r = 0;
    r += dev.fetch_add(1, cuda::memory_order_relaxed);
    r += dev.fetch_add(1, cuda::memory_order_acquire);
    r += dev.fetch_sub(1, cuda::memory_order_release);
    r += dev.fetch_and(7, cuda::memory_order_acq_rel);
    r += dev.fetch_or(8, cuda::memory_order_seq_cst);
    r += blk.fetch_xor(t, cuda::memory_order_acquire);
    r += blk.fetch_min(t, cuda::memory_order_relaxed);
    r += sys.fetch_max(t, cuda::memory_order_release);
    r += sys.exchange(t, cuda::memory_order_acq_rel);
    int expected = 0;
    r += dev.compare_exchange_strong(expected, t, cuda::memory_order_acq_rel, cuda::memory_order_acquire);
    r += blk.compare_exchange_weak(expected, t + 1, cuda::memory_order_relaxed);
    r += dev.load(cuda::memory_order_acquire) + blk.load(cuda::memory_order_relaxed) + sys.load(cuda::memory_order_seq_cst);
    dev.store(r, cuda::memory_order_release);
    sys.store(r, cuda::memory_order_relaxed);
    blk.store(r, cuda::memory_order_seq_cst);
    r += (int)dev64.fetch_add(3ull, cuda::memory_order_acq_rel) + (int)dev64.fetch_max(9ull, cuda::memory_order_relaxed);
    r += (int)fdev.fetch_add(1.5f, cuda::memory_order_release) + (int)dsys.fetch_add(0.5, cuda::memory_order_acquire);
    r += (int)fdev.exchange(2.f, cuda::memory_order_relaxed);
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_system);
    cuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_device);
    cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_block);
    cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
    out[t] = r;
}

__device__ cuda::atomic<int, cuda::thread_scope_device> g_counter(0);
__device__ cuda::std::atomic<unsigned> g_std_counter(0);
__device__ cuda::atomic<int, cuda::thread_scope_device> g_lock(0);

__global__ void atomic_objects(int* out)
{
    int prev = g_counter.fetch_add(1);
    unsigned sp = g_std_counter.fetch_add(2u, cuda::std::memory_order_relaxed);
    while (g_lock.exchange(1, cuda::std::memory_order_acquire) != 0) { __nanosleep(32); }
    out[0] += prev;
    g_lock.store(0, cuda::std::memory_order_release);
    out[threadIdx.x + 1] = prev + (int)sp + g_counter.load();
}

__global__ void shared_atomic_ref(int* out)
{
    __shared__ int s[32];
    s[threadIdx.x & 31] = 0;
    __syncthreads();
    cuda::atomic_ref<int, cuda::thread_scope_block> a(s[threadIdx.x & 7]);
    int v = a.fetch_add(1, cuda::memory_order_relaxed);
    a.fetch_max(v, cuda::memory_order_acq_rel);
    __syncthreads();
    out[threadIdx.x] = a.load(cuda::memory_order_acquire) + v;
}
