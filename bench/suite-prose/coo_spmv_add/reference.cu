// coo_spmv_add: y[row[k]] += val[k] * x[col[k]] for every stored entry (atomics: rows repeat).
extern "C" __global__ void coo_spmv_add(const int* __restrict__ row, const int* __restrict__ col,
                                        const float* __restrict__ val, const float* __restrict__ x,
                                        float* __restrict__ y, unsigned int rows, unsigned int cols,
                                        unsigned int nnz)
{
    unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < nnz) atomicAdd(&y[row[k]], val[k] * x[col[k]]);
}
