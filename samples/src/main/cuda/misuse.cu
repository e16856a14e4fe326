// misuse: the kernel of the driver API misuse suite (src/main/c/misuse.c).
// Three parameters, so that a kernelParams array can be too short; it writes only when `out` is
// not NULL, so the launches whose other parameters are garbage leave the context healthy.
extern "C" __global__ void store3(int *out, int a, int b)
{
    if (out != 0) *out = a + b;
}
