// test_printf_formats.cu - printf's sizes and widths in a kernel. h, l, ll and a width from an argument
// (%*d) print as they do on a GPU. The size hh and a precision from an argument (%.*f), which the GPU's
// printf does not do (on an H100 they printed other text and shifted the values after them), print as C
// would, and each is reported once per launch at its line.
#include <cstdio>

__global__ void sizes(int v)
{
    printf("h: %hd %hu, l: %ld, ll: %lld\n", (short)v, (unsigned short)v, (long)v * 3, (long long)v << 40);
    printf("hh: %hhu then %d\n", (unsigned char)v, 7);
}

__global__ void stars(float f)
{
    printf("width: [%*d] [%-*d]\n", 6, 42, 6, -7);
    printf("precision: [%8.*f] then %d\n", 2, f, 7);
}

int main()
{
    sizes<<<1, 2>>>(-16657);
    cudaDeviceSynchronize();
    stars<<<1, 1>>>(3.14159f);
    cudaDeviceSynchronize();
    return 0;
}
