/* pin_device.h - force-included (nvcc -include) when a solution is compiled for checker/gpu/: lets the
 * emulator build answer the GPU's multiprocessor count, so that launchers that size their grid from the
 * device (v6, ex11) launch the same grid on both and their outputs can be compared word for word.
 * PIN_SMS and PIN_THREADS_PER_SM (environment) replace what cudaDeviceGetAttribute reports; unset, it is
 * the device's own answer. */
#include <stdlib.h>
#include <cuda_runtime.h>

static inline cudaError_t pinned_device_attribute(int *value, enum cudaDeviceAttr attr, int device)
{
    cudaError_t err = cudaDeviceGetAttribute(value, attr, device);
    const char *pin = NULL;
    if (attr == cudaDevAttrMultiProcessorCount)
        pin = getenv("PIN_SMS");
    else if (attr == cudaDevAttrMaxThreadsPerMultiProcessor)
        pin = getenv("PIN_THREADS_PER_SM");
    if (err == cudaSuccess && pin && *pin)
        *value = atoi(pin);
    return err;
}
#define cudaDeviceGetAttribute pinned_device_attribute
