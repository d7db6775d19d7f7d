// bitonic_step: one compare-exchange step (j, k) of a bitonic sorting network on n = 2^m u32 keys,
// in place: for every i < n with partner l = i ^ j and l > i, the pair (keys[i], keys[l]) is put
// in ascending order when (i & k) == 0, descending otherwise.
// One thread per PAIR (not per element: half of those threads would only find l < i and exit).
// Thread p owns the pair whose lower index inserts a 0 bit at position log2(j) into p; consecutive
// threads touch consecutive keys, and a pair is written back only when it swaps.
// Requires n a power of two >= 2, j a power of two < n, k a power of two.
extern "C" __global__ void __launch_bounds__(256) bitonic_step(unsigned* keys, unsigned n, unsigned j, unsigned k)
{
    const unsigned p = blockIdx.x * 256u + threadIdx.x;   // the pair this thread owns
    if (p >= n / 2) return;                               // n/2 pairs
    const unsigned lo = p & (j - 1u);                     // p & (j-1)
    const unsigned i = ((p - lo) << 1) | lo;              // (p & ~(j-1)) << 1 | (p & (j-1))
    const unsigned l = i + j;                             // = i ^ j: bit log2(j) of i is 0
    const bool ascending = (i & k) == 0;
    const unsigned a = keys[i];   // plain loads (not .nc): this kernel writes the buffer
    const unsigned b = keys[l];
    const bool out_of_order = ascending ? a > b : a < b;
    if (!out_of_order) return;   // already in order: no write
    keys[i] = b;
    keys[l] = a;
}
