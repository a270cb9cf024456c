/* half_types.h - the 16-bit float types of Part III's contracts (exercises 13-15): __half and
 * __nv_bfloat16 where the learner's file is compiled, their bits (uint16_t) where the C suites and
 * checker/metrics/metrics.c are. */
#ifndef HALF_TYPES_H
#define HALF_TYPES_H
#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define HALF_T __half
#define BF16_T __nv_bfloat16
#else
#define HALF_T unsigned short   /* uint16_t, without an include that would come before the suite's own */
#define BF16_T unsigned short
#endif
#endif
