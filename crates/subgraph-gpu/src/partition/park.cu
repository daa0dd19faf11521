// SGSI's columnar tables (§6.2, Alg. 6): a table parked column after column in host memory
// comes back one block at a time as its columns' ranges, one after another; the join's
// kernels read rows, so the block is laid out row after row on the device. One thread per
// element, grid-stride; writes are coalesced, each column's reads are too across a warp.
extern "C" __global__ void park_rows(const unsigned int* columns, unsigned long long rows,
                                     unsigned int cols, unsigned int* table) {
    const unsigned long long total = rows * cols;
    for (unsigned long long e = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         e < total; e += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned long long r = e / cols;
        const unsigned int c = (unsigned int)(e - r * cols);
        table[e] = columns[(unsigned long long)c * rows + r];
    }
}
