/* nccl.h - the emulator's NCCL: the calls of NVIDIA's NCCL that the course's exercises use, declared as
 * NCCL 2.28 declares them (the same names, types and values, so that a file compiled against the real
 * header links against the emulator's implementation, checker/emu/emu_nccl.c, and the other way round).
 * On a GPU machine the real header and library are used (the nvidia-nccl-cu13 wheel, or the toolkit's). */
#ifndef NCCL_H_
#define NCCL_H_

#include <cuda_runtime_api.h>
#include <stddef.h>
#if defined(__cplusplus) && defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

#define NCCL_MAJOR 2
#define NCCL_MINOR 28
#define NCCL_PATCH 9
#define NCCL_SUFFIX "-emulator"
#define NCCL_VERSION_CODE 22809
#define NCCL_VERSION(X, Y, Z) (((X) <= 2 && (Y) <= 8) ? (X) * 1000 + (Y) * 100 + (Z) : (X) * 10000 + (Y) * 100 + (Z))

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ncclComm *ncclComm_t;
#define NCCL_COMM_NULL NULL

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct { char internal[NCCL_UNIQUE_ID_BYTES]; } ncclUniqueId;

typedef enum { ncclSuccess = 0,
               ncclUnhandledCudaError = 1,
               ncclSystemError = 2,
               ncclInternalError = 3,
               ncclInvalidArgument = 4,
               ncclInvalidUsage = 5,
               ncclRemoteError = 6,
               ncclInProgress = 7,
               ncclNumResults = 8 } ncclResult_t;

typedef enum { ncclNumOps_dummy = 5 } ncclRedOp_dummy_t;
typedef enum { ncclSum = 0,
               ncclProd = 1,
               ncclMax = 2,
               ncclMin = 3,
               ncclAvg = 4,   /* the sum divided by the number of ranks */
               ncclNumOps = 5,
               ncclMaxRedOp = 0x7fffffff >> (32 - 8 * sizeof(ncclRedOp_dummy_t)) } ncclRedOp_t;

typedef enum { ncclInt8 = 0, ncclChar = 0,
               ncclUint8 = 1,
               ncclInt32 = 2, ncclInt = 2,
               ncclUint32 = 3,
               ncclInt64 = 4,
               ncclUint64 = 5,
               ncclFloat16 = 6, ncclHalf = 6,
               ncclFloat32 = 7, ncclFloat = 7,
               ncclFloat64 = 8, ncclDouble = 8,
               ncclBfloat16 = 9,
               ncclFloat8e4m3 = 10,   /* declared as NCCL does; the emulator's NCCL refuses them (no FP8 here) */
               ncclFloat8e5m2 = 11,
               ncclNumTypes = 12 } ncclDataType_t;

/* ---- Versions, ids, communicators ---------------------------------------------------------------------- */
ncclResult_t ncclGetVersion(int *version);
ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId);
/* Rank `rank` of nranks, on the current device; with several ranks in one thread, between ncclGroupStart and
 * ncclGroupEnd (alone, each call waits for the others: a thread that makes them one after another hangs). */
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank);
/* One communicator per device of devlist (NULL: devices 0 .. ndev-1), rank i on devlist[i]. */
ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist);
ncclResult_t ncclCommFinalize(ncclComm_t comm);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
ncclResult_t ncclCommAbort(ncclComm_t comm);
const char *ncclGetErrorString(ncclResult_t result);
const char *ncclGetLastError(ncclComm_t comm);
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError);
ncclResult_t ncclCommCount(const ncclComm_t comm, int *count);
ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device);
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank);

/* ---- Collectives: each enqueued on `stream`, a stream of the communicator's device; in place when
 * sendbuff == recvbuff (reduce-scatter: recvbuff == sendbuff + rank * recvcount; all-gather: sendbuff ==
 * recvbuff + rank * sendcount). Counts are in elements of datatype, not bytes. ---------------------------- */
ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                        int root, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
                       cudaStream_t stream);
ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root,
                           ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
/* sendbuff holds nranks x recvcount elements; rank r receives the reduction of block r. */
ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
/* recvbuff holds nranks x sendcount elements; block r comes from rank r. */
ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t stream);

/* ---- Groups: the calls between them are made together at ncclGroupEnd (they may nest) ----------------- */
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);

#ifdef __cplusplus
}
#endif
#endif
