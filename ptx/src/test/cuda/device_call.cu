// zluda ptx corpus: non-inlined device functions, by-value structs, pointers to functions, globals.
struct Pair { char tag; double value; };
struct Big { int a[5]; short s; };

__device__ int counter;
__constant__ float coefficients[4] = {1.0f, 0.5f, 0.25f, 0.125f};
__device__ int table[3] = {1, 2, 3};

__device__ __noinline__ float poly(float x) {
    return coefficients[0] + x * (coefficients[1] + x * (coefficients[2] + x * coefficients[3]));
}

__device__ __noinline__ Pair make_pair(char t, double v) { Pair p; p.tag = t; p.value = v * 2; return p; }

typedef int (*binop)(int, int);
__device__ __noinline__ int add_op(int a, int b) { return a + b; }
__device__ __noinline__ int mul_op(int a, int b) { return a * b; }

extern "C" __global__ void call_kernel(float *out, Pair p, Big big, char c, short s, long long l,
                                       double d, int select) {
    int i = threadIdx.x;
    Pair q = make_pair(p.tag + c, p.value + d);
    binop f = select ? add_op : mul_op;
    out[i] = poly((float)i) + q.value + big.a[i % 5] + big.s + s + (float)l + f(i, table[i % 3]);
    atomicAdd(&counter, 1);
}
