// test_nccl.cu - the emulator's NCCL (emu_nccl.c): communicators by ncclCommInitAll and by a unique id in a
// group, every collective in place and out of place, the reductions of float, half, bf16 and int32, the same
// bits on every rank, NCCL's results for bad arguments, and the findings: a collective or an init outside a
// group, a count past its buffer, a kernel that writes a buffer in no order with the all-reduce that reads it,
// ranks whose calls do not match, a call no other rank matched.
#include <cstdio>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <nccl.h>

#define RANKS 4
#define N 1000

__global__ void fill(float *x, int n, float v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;   // the write the all-reduce races with
}

static float *d[RANKS], *d2[RANKS];
static cudaStream_t s[RANKS];
static ncclComm_t comms[RANKS];

static void put(float *dst, const float *h, int count) { cudaMemcpy(dst, h, count * sizeof(float), cudaMemcpyHostToDevice); }

static void ranks_fill(float **bufs, int count, float scale)
{
    static float h[4 * N];
    for (int r = 0; r < RANKS; r++) {
        cudaSetDevice(r);
        for (int i = 0; i < count; i++) h[i] = scale * (float)(r + 1) + 0.001f * (float)i;
        put(bufs[r], h, count);
    }
}

static void sync_all(void)
{
    for (int r = 0; r < RANKS; r++) {
        cudaSetDevice(r);
        cudaStreamSynchronize(s[r]);
    }
}

static float at(const float *dev, int i)
{
    float v;
    cudaMemcpy(&v, dev + i, sizeof v, cudaMemcpyDeviceToHost);
    return v;
}

// 1 when every rank's first count floats hold the same bits as rank 0's.
static int same_bits(float **bufs, int count)
{
    static float a[4 * N], b[4 * N];
    cudaMemcpy(a, bufs[0], count * sizeof(float), cudaMemcpyDeviceToHost);
    for (int r = 1; r < RANKS; r++) {
        cudaMemcpy(b, bufs[r], count * sizeof(float), cudaMemcpyDeviceToHost);
        if (memcmp(a, b, count * sizeof(float))) return 0;
    }
    return 1;
}

int main()
{
    int version = 0, count = 0, device = -1, rank = -1;
    ncclGetVersion(&version);
    printf("version %d\n", version);
    for (int r = 0; r < RANKS; r++) {
        cudaSetDevice(r);
        cudaStreamCreateWithFlags(&s[r], cudaStreamNonBlocking);
        cudaMalloc(&d[r], 4 * N * sizeof(float));
        cudaMalloc(&d2[r], 4 * N * sizeof(float));
    }
    printf("init all: %s\n", ncclGetErrorString(ncclCommInitAll(comms, RANKS, NULL)));
    ncclCommCount(comms[2], &count);
    ncclCommCuDevice(comms[2], &device);
    ncclCommUserRank(comms[2], &rank);
    printf("comm 2: %d ranks, device %d, rank %d\n", count, device, rank);

    // In place, float sum, in a group: every rank holds 1+2+3+4 = 10 (+ 4 x 0.001 i).
    ranks_fill(d, N, 1.0f);
    ncclGroupStart();
    for (int r = 0; r < RANKS; r++) ncclAllReduce(d[r], d[r], N, ncclFloat, ncclSum, comms[r], s[r]);
    ncclGroupEnd();
    sync_all();
    printf("allreduce sum: %g %g, same bits %d\n", at(d[3], 0), at(d[3], 500), same_bits(d, N));

    // Out of place: max, min, prod, avg.
    const ncclRedOp_t ops[] = { ncclMax, ncclMin, ncclProd, ncclAvg };
    const char *names[] = { "max", "min", "prod", "avg" };
    for (int k = 0; k < 4; k++) {
        ranks_fill(d, N, 1.0f);
        ncclGroupStart();
        for (int r = 0; r < RANKS; r++) ncclAllReduce(d[r], d2[r], N, ncclFloat, ops[k], comms[r], s[r]);
        ncclGroupEnd();
        sync_all();
        printf("allreduce %s: %g, input kept %g\n", names[k], at(d2[1], 0), at(d[1], 0));
    }

    // Half and bf16 add with one rounding each, in rank order: 2048 + 1 + 1 + 1 stays 2048 in half (each 2049
    // rounds to the even 2048), 256 + 1 + 1 + 1 stays 256 in bf16. Int32 wraps.
    {
        __half hv[RANKS] = { __float2half(2048.0f), __float2half(1.0f), __float2half(1.0f), __float2half(1.0f) };
        __nv_bfloat16 bv[RANKS] = { __float2bfloat16(256.0f), __float2bfloat16(1.0f), __float2bfloat16(1.0f),
                                    __float2bfloat16(1.0f) };
        int iv[RANKS] = { 2147483647, 1, 2, 3 };
        for (int r = 0; r < RANKS; r++) {
            cudaSetDevice(r);
            cudaMemcpy(d[r], &hv[r], 2, cudaMemcpyHostToDevice);
            cudaMemcpy((char *)d[r] + 2, &bv[r], 2, cudaMemcpyHostToDevice);
            cudaMemcpy((char *)d[r] + 4, &iv[r], 4, cudaMemcpyHostToDevice);
        }
        ncclGroupStart();
        for (int r = 0; r < RANKS; r++) {
            ncclAllReduce(d[r], d[r], 1, ncclHalf, ncclSum, comms[r], s[r]);
            ncclAllReduce((char *)d[r] + 2, (char *)d[r] + 2, 1, ncclBfloat16, ncclSum, comms[r], s[r]);
            ncclAllReduce((char *)d[r] + 4, (char *)d[r] + 4, 1, ncclInt32, ncclSum, comms[r], s[r]);
        }
        ncclGroupEnd();
        sync_all();
        __half h;
        __nv_bfloat16 b;
        int i;
        cudaMemcpy(&h, d[2], 2, cudaMemcpyDeviceToHost);
        cudaMemcpy(&b, (char *)d[2] + 2, 2, cudaMemcpyDeviceToHost);
        cudaMemcpy(&i, (char *)d[2] + 4, 4, cudaMemcpyDeviceToHost);
        printf("half %g, bf16 %g, int32 %d\n", __half2float(h), __bfloat162float(b), i);
    }

    // Reduce-scatter (out of place and in place), all-gather (in place), broadcast, reduce.
    ranks_fill(d, RANKS * 10, 1.0f);
    ncclGroupStart();
    for (int r = 0; r < RANKS; r++) ncclReduceScatter(d[r], d2[r], 10, ncclFloat, ncclSum, comms[r], s[r]);
    ncclGroupEnd();
    sync_all();
    printf("reduce-scatter: rank 3 element 0 is %g\n", at(d2[3], 0));
    ranks_fill(d, RANKS * 10, 1.0f);
    ncclGroupStart();
    for (int r = 0; r < RANKS; r++) ncclReduceScatter(d[r], d[r] + r * 10, 10, ncclFloat, ncclSum, comms[r], s[r]);
    ncclGroupEnd();
    sync_all();
    printf("reduce-scatter in place: rank 3 element 30 is %g\n", at(d[3], 30));
    ranks_fill(d, RANKS * 10, 1.0f);
    ncclGroupStart();
    for (int r = 0; r < RANKS; r++) ncclAllGather(d[r] + r * 10, d[r], 10, ncclFloat, comms[r], s[r]);
    ncclGroupEnd();
    sync_all();
    printf("all-gather in place: rank 0 holds %g %g %g %g\n", at(d[0], 0), at(d[0], 10), at(d[0], 20), at(d[0], 30));
    ranks_fill(d, N, 1.0f);
    ncclGroupStart();
    for (int r = 0; r < RANKS; r++) ncclBroadcast(d[r], d[r], N, ncclFloat, 2, comms[r], s[r]);
    ncclGroupEnd();
    sync_all();
    printf("broadcast from 2: rank 0 holds %g\n", at(d[0], 0));
    ranks_fill(d, N, 1.0f);
    ranks_fill(d2, N, -1.0f);
    ncclGroupStart();
    for (int r = 0; r < RANKS; r++) ncclReduce(d[r], d2[r], N, ncclFloat, ncclSum, 1, comms[r], s[r]);
    ncclGroupEnd();
    sync_all();
    printf("reduce to 1: rank 1 holds %g, rank 0 kept %g\n", at(d2[1], 0), at(d2[0], 0));

    // Bad arguments: NCCL's results.
    cudaSetDevice(0);
    printf("null buffer: %d\n", (int)ncclAllReduce(NULL, d[0], N, ncclFloat, ncclSum, comms[0], s[0]));
    printf("count overflows: %d\n", (int)ncclAllReduce(d[0], d[0], (size_t)-1 / 2, ncclFloat, ncclSum, comms[0], s[0]));
    printf("stream of device 1: %d\n", (int)ncclAllReduce(d[0], d[0], N, ncclFloat, ncclSum, comms[0], s[1]));
    printf("bad type: %d, bad op: %d\n", (int)ncclAllReduce(d[0], d[0], N, (ncclDataType_t)42, ncclSum, comms[0], s[0]),
           (int)ncclAllReduce(d[0], d[0], N, ncclFloat, (ncclRedOp_t)9, comms[0], s[0]));
    printf("group end alone: %d\n", (int)ncclGroupEnd());

    // Counts in bytes: four times past the buffer.
    printf("count in bytes: %d\n", (int)ncclAllReduce(d[0], d[0], 4 * N * sizeof(float), ncclFloat, ncclSum, comms[0], s[0]));

    // A race: a kernel on the default stream of each device fills the buffer, and the all-reduce on s[r] reads it
    // with no event between them (s[r] does not wait for the legacy stream).
    for (int r = 0; r < RANKS; r++) {
        cudaSetDevice(r);
        fill<<<(N + 255) / 256, 256>>>(d[r], N, 1.0f);
    }
    ncclGroupStart();
    for (int r = 0; r < RANKS; r++) ncclAllReduce(d[r], d[r], N, ncclFloat, ncclSum, comms[r], s[r]);
    ncclGroupEnd();
    for (int r = 0; r < RANKS; r++) {
        cudaSetDevice(r);
        cudaDeviceSynchronize();
    }

    // Outside a group: a finding, and the collective still runs once every rank's call is in.
    for (int r = 0; r < RANKS; r++) ncclAllReduce(d[r], d[r], N, ncclFloat, ncclSum, comms[r], s[r]);
    sync_all();
    printf("outside a group: %g\n", at(d[0], 0));

    // Ranks whose calls do not match (rank 1 asks for one element fewer): a finding, and nothing is written.
    ranks_fill(d, N, 1.0f);
    ncclGroupStart();
    for (int r = 0; r < RANKS; r++) ncclAllReduce(d[r], d[r], r == 1 ? N - 1 : N, ncclFloat, ncclSum, comms[r], s[r]);
    ncclGroupEnd();
    sync_all();
    printf("calls that do not match: rank 0 kept %g\n", at(d[0], 0));

    // A call that no other rank matches: said at ncclCommDestroy.
    ncclGroupStart();
    ncclAllReduce(d[0], d[0], N, ncclFloat, ncclSum, comms[0], s[0]);
    ncclGroupEnd();
    for (int r = 0; r < RANKS; r++) ncclCommDestroy(comms[r]);

    // A unique id and ranks in a group.
    ncclUniqueId id;
    ncclGetUniqueId(&id);
    ncclGroupStart();
    for (int r = 0; r < 2; r++) {
        cudaSetDevice(r);
        ncclCommInitRank(&comms[r], 2, id, r);
    }
    printf("init rank in a group: %s\n", ncclGetErrorString(ncclGroupEnd()));
    ranks_fill(d, N, 1.0f);
    ncclGroupStart();
    for (int r = 0; r < 2; r++) ncclAllReduce(d[r], d[r], N, ncclFloat, ncclSum, comms[r], s[r]);
    ncclGroupEnd();
    sync_all();
    printf("two ranks: %g\n", at(d[1], 0));
    ncclResult_t first = ncclCommDestroy(comms[0]), second = ncclCommDestroy(comms[0]);
    printf("destroy twice: %d %d\n", (int)first, (int)second);

    // ncclCommInitRank for one rank of two, alone: a real NCCL waits here for rank 1, which never comes.
    ncclGetUniqueId(&id);
    cudaSetDevice(0);
    printf("init rank alone: %d\n", (int)ncclCommInitRank(&comms[0], 2, id, 0));
    return 0;
}
