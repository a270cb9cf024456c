/* emu_devices.c - several emulated devices: how many (EMU_DEVICES, 4 unless set), which one is current, peer
 * access between them and peer copies. Each device has its own memory (an allocation knows its device,
 * emu_mem.c), its streams and events (emu_events.c), and the order between them is checked (emu_order.c).
 * Every device has the same limits (emu_rt.h). */
#include <stdlib.h>

#include "emu_rt.h"

#define EMU_DEFAULT_DEVICES 4

static const char emu_msg_bad_device[] = N_("%s(%d): the emulator has %d devices, numbered 0 to %d");
static const char emu_msg_peer_self[] =
    N_("cudaDeviceEnablePeerAccess(%d, 0) on device %d: a device reaches its own memory without peer access");
static const char emu_msg_peer_not_enabled[] =
    N_("cudaDeviceDisablePeerAccess(%d) on device %d: peer access to it was never enabled");
static const char emu_msg_peer_flags[] = N_("cudaDeviceEnablePeerAccess: flags must be 0, not %u");
static const char emu_msg_wrong_device[] =
    N_("%s: the %s pointer %p is memory of device %d, not of device %d as the call says");

static int device_count;   /* 0 until asked */
static int sm_count = EMU_DEFAULT_SM_COUNT;
static int current_device;
static unsigned char peer[EMU_MAX_DEVICES][EMU_MAX_DEVICES];   /* peer[a][b]: kernels on a may use b's memory */

int emu_rt_device_count(void)
{
    if (!device_count) {
        const char *s = getenv("EMU_DEVICES");
        int n = s && *s ? atoi(s) : EMU_DEFAULT_DEVICES;
        device_count = n < 1 ? 1 : n > EMU_MAX_DEVICES ? EMU_MAX_DEVICES : n;
    }
    return device_count;
}

int emu_rt_device_current(void) { return current_device; }

void emu_set_sm_count(int sms) { sm_count = sms < 1 ? 1 : sms > EMU_MAX_SM_COUNT ? EMU_MAX_SM_COUNT : sms; }
int emu_rt_sm_count(void) { return sm_count; }
int emu_rt_sms_per_gpc(void) { return sm_count < EMU_GPC_SMS ? sm_count : EMU_GPC_SMS; }

/* cudaSuccess for a device that exists, else a finding that names who asked, and cudaErrorInvalidDevice. */
cudaError_t emu_rt_device_check(int device, const char *who)
{
    int n = emu_rt_device_count();
    if (device >= 0 && device < n) return cudaSuccess;
    emu_finding(emu_msg_bad_device, who, device, n, n - 1);
    return emu_rt_fail(cudaErrorInvalidDevice);
}

int emu_peer_access(int from, int to)
{
    return from == to || (from >= 0 && to >= 0 && from < EMU_MAX_DEVICES && to < EMU_MAX_DEVICES && peer[from][to]);
}

void emu_rt_devices_reset(void)
{
    for (int a = 0; a < EMU_MAX_DEVICES; a++)
        for (int b = 0; b < EMU_MAX_DEVICES; b++) peer[a][b] = 0;
}

cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count) return emu_rt_fail(cudaErrorInvalidValue);
    *count = emu_rt_device_count();
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    if (!device) return emu_rt_fail(cudaErrorInvalidValue);
    *device = current_device;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    cudaError_t err = emu_rt_device_check(device, "cudaSetDevice");
    if (err != cudaSuccess) return err;
    current_device = device;
    if (device != 0) {   /* work on a second device may run beside the first's */
        emu_order_track_start();
        emu_rt_held_devices();
    }
    return cudaSuccess;
}

/* ---- Peer access ------------------------------------------------------------------------------------------ */

cudaError_t cudaDeviceCanAccessPeer(int *can, int device, int peer_device)
{
    if (!can) return emu_rt_fail(cudaErrorInvalidValue);
    cudaError_t err = emu_rt_device_check(device, "cudaDeviceCanAccessPeer");
    if (err == cudaSuccess) err = emu_rt_device_check(peer_device, "cudaDeviceCanAccessPeer");
    if (err != cudaSuccess) return err;
    *can = device != peer_device;   /* every pair is linked, as on an NVLink machine; a device is not its own peer */
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer_device, unsigned flags)
{
    cudaError_t err = emu_rt_device_check(peer_device, "cudaDeviceEnablePeerAccess");
    if (err != cudaSuccess) return err;
    if (flags != 0) {
        emu_finding(emu_msg_peer_flags, flags);
        return emu_rt_fail(cudaErrorInvalidValue);
    }
    if (peer_device == current_device) {
        emu_finding(emu_msg_peer_self, peer_device, current_device);
        return emu_rt_fail(cudaErrorInvalidDevice);
    }
    if (peer[current_device][peer_device]) {
        /* a real runtime's answer, and a common one: programs often ignore it, so it is no finding */
        return emu_rt_fail(cudaErrorPeerAccessAlreadyEnabled);
    }
    peer[current_device][peer_device] = 1;
    return cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peer_device)
{
    cudaError_t err = emu_rt_device_check(peer_device, "cudaDeviceDisablePeerAccess");
    if (err != cudaSuccess) return err;
    if (!peer[current_device][peer_device]) {
        emu_finding(emu_msg_peer_not_enabled, peer_device, current_device);
        return emu_rt_fail(cudaErrorPeerAccessNotEnabled);
    }
    peer[current_device][peer_device] = 0;
    return cudaSuccess;
}

/* ---- Peer copies: no peer access needed (the driver stages them when there is none) ------------------------ */

/* Whether p is memory of device (or memory every device may use: pinned, managed); a finding if not. */
static int on_device(const void *p, int device, const char *who, const char *role)
{
    const emu_alloc *a = emu_mem_lookup((uintptr_t)p, 1);
    if (!a || a->device < 0 || a->device == device) return 1;   /* not device memory at all: emu_rt_copy says so */
    emu_finding(emu_msg_wrong_device, who, emu_text(role), p, a->device, device);
    return 0;
}

static cudaError_t peer_copy(void *dst, int dst_device, const void *src, int src_device, size_t count,
                             cudaStream_t s, const char *who)
{
    cudaError_t err = emu_rt_device_check(dst_device, who);
    if (err == cudaSuccess) err = emu_rt_device_check(src_device, who);
    if (err != cudaSuccess) return err;
    if (!emu_rt_stream_valid(s)) return emu_rt_fail(cudaErrorInvalidResourceHandle);
    if (count && dst && src &&
        (!on_device(dst, dst_device, who, N_("destination")) || !on_device(src, src_device, who, N_("source"))))
        return emu_rt_fail(cudaErrorInvalidValue);
    return emu_rt_copy(dst, src, count, cudaMemcpyDeviceToDevice, who, s);
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dst_device, const void *src, int src_device, size_t count,
                                cudaStream_t s)
{
    return peer_copy(dst, dst_device, src, src_device, count, s, "cudaMemcpyPeerAsync");
}

/* Asynchronous to the host, but serialized with all work, before and after, on the current device and both
 * devices of the copy. */
cudaError_t cudaMemcpyPeer(void *dst, int dst_device, const void *src, int src_device, size_t count)
{
    int devices[3] = { current_device, dst_device, src_device };
    int known = dst_device >= 0 && dst_device < emu_rt_device_count() && src_device >= 0 &&
                src_device < emu_rt_device_count();
    if (known) emu_order_serialize_devices(devices, 3);
    cudaError_t err = peer_copy(dst, dst_device, src, src_device, count, NULL, "cudaMemcpyPeer");
    if (known) emu_order_serialize_devices(devices, 3);
    return err;
}
