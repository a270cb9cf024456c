// test_printf_sizes.cu - printf's size modifiers in a kernel. h, l and ll print as they do on a GPU;
// hh, which the GPU's printf does not know (on an H100 it printed bytes of the format string instead, and
// the values after it came out wrong), prints as C would and is reported once, at its line.
#include <cstdio>

__global__ void sizes(int v)
{
    printf("h: %hd %hu, l: %ld, ll: %lld\n", (short)v, (unsigned short)v, (long)v * 3, (long long)v << 40);
    printf("hh: %hhu then %d\n", (unsigned char)v, 7);
}

int main()
{
    sizes<<<1, 2>>>(-16657);
    cudaDeviceSynchronize();
    return 0;
}
