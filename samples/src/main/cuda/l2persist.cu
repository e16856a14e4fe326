// Kernel of the persisting-L2 sample (samples/src/main/c/l2persist.c): a lookup table read again and
// again (the data worth keeping in L2) while a stream of other data passes through.
extern "C" __global__ void lookup(int *out, const int *table, const int *keys, int tableSize, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int k = keys[i];
        out[i] = table[k % tableSize] * 3 + k;
    }
}
