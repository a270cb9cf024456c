#!/bin/sh
# test_engine_kernels.sh - the engine on real nvcc PTX: one small kernel per instruction family and per
# diagnosis (tests/kernels/*.cu), each checked against a known answer and, for bugs, the expected finding.
# Run by run_tests.sh (make emu-test) with BUILD, CC, NVCC, EMU_CFLAGS and EMU_LIB set.
: "${BUILD:=build}" "${CC:=cc}" "${NVCC:=nvcc}" "${EMU_LIB:=$BUILD/emu/libcudaemu.a}"
: "${EMU_CFLAGS:=-std=c11 -O2 -Wall -Wextra}"
dir=$(dirname "$0")
out="$BUILD/emu/tests/engine"
mkdir -p "$out"
$CC $EMU_CFLAGS "$dir/engine_driver.c" "$EMU_LIB" -lstdc++ -lm -o "$out/engine_driver" || { echo "engine_driver does not build"; exit 1; }
for cu in "$dir"/kernels/*.cu; do
    name=$(basename "$cu" .cu)
    $NVCC -ptx -lineinfo -arch=compute_90 -O3 "$cu" -o "$out/$name.ptx" || { echo "nvcc failed on $cu"; exit 1; }
done
fails=0
export EMU_BUDGET=100000000   # the endless loop gives up after 1e8 warp instructions, not 2e9
# check NAME FILE ENTRY "GRID BLOCK SHARED ARGS..." "EXPECTED STDOUT (lines joined by |, or * for any)" ["FINDING SUBSTRING"]
# (DRIVER_FLAGS=--all before it: every output value, not the first 40 and a sum)
check() {
    name=$1 file=$2 entry=$3 args=$4 want=$5 finding=$6
    # shellcheck disable=SC2086
    "$out/engine_driver" ${DRIVER_FLAGS:-} "$out/$file.ptx" "$entry" $args >"$out/$name.out" 2>"$out/$name.err"
    got=$(tr '\n' '|' <"$out/$name.out" | sed 's/|$//')
    if [ "$want" != "*" ] && [ "$got" != "$want" ]; then
        echo "FAIL engine $name: got '$got', expected '$want'"; sed 's/^/    /' "$out/$name.err" | head -5
        fails=$((fails + 1)); return
    fi
    if [ -n "$finding" ] && ! grep -qF -- "$finding" "$out/$name.err"; then
        echo "FAIL engine $name: no finding containing '$finding'; stderr:"; sed 's/^/    /' "$out/$name.err" | head -5
        fails=$((fails + 1)); return
    fi
    if [ -z "$finding" ] && [ -s "$out/$name.err" ]; then
        echo "FAIL engine $name: unexpected findings:"; sed 's/^/    /' "$out/$name.err" | head -5
        fails=$((fails + 1)); return
    fi
    echo "ok engine $name"
}

# sums (atomics, trees, unrolled, shuffles, cooperative groups, redux, vector loads)
check atomic_sum atomic_sum _Z10atomic_sumPKiPii "4 256 0 in:i32:1000:iota out:i32:1 i=1000" "error 0|out0: 499500"
check v1_interleaved tree_interleaved _Z9reduce_v1PKiPii "4 256 1024 in:i32:1000:iota out:i32:4 i=1000" "error 0|out0: 32640 98176 163712 204972"
# v1 assumes a power-of-two block: with 7 threads, thread 6 reads sdata[6 + 1]
check v1_odd_block tree_interleaved _Z9reduce_v1PKiPii "3 7 28 in:i32:20:iota out:i32:3 i=20" "error 700|out0: 0 0 0" "out-of-bounds shared memory read of 4 bytes: sdata[7], but the dynamic shared memory of this launch"
check v4_syncwarp tree_sequential _Z18reduce_v4_syncwarpPKiPij "2 256 1024 in:i32:1000:iota out:i32:2 u=1000" "error 0|out0: 130816 368684"
check v4_volatile_race tree_sequential _Z18reduce_v4_volatilePKiPij "2 256 1024 in:i32:1000:iota out:i32:2 u=1000" "error 0|out0: 130816 368684" "times in this launch; only the first is described"
# advice that fits the case: volatile warp-synchronous code gets __syncwarp(), not a block-wide barrier
check v4_volatile_advice tree_sequential _Z18reduce_v4_volatilePKiPij "2 256 1024 in:i32:1000:iota out:i32:2 u=1000" "error 0|out0: 130816 368684" "This is warp-synchronous code through volatile shared memory"
check v5_32 unroll_template _Z9reduce_v5ILj32EEvPKiPij "3 32 0 in:i32:100:iota out:i32:3 u=100" "error 0|out0: 2016 2934 0"
check v5_64 unroll_template _Z9reduce_v5ILj64EEvPKiPij "1 64 0 in:i32:100:iota out:i32:1 u=100" "error 0|out0: 4950"
check v5_256 unroll_template _Z9reduce_v5ILj256EEvPKiPij "2 256 0 in:i32:1000:iota out:i32:2 u=1000" "error 0|out0: 130816 368684"
check v5_1024 unroll_template _Z9reduce_v5ILj1024EEvPKiPij "1 1024 0 in:i32:2048:ones out:i32:1 u=2048" "error 0|out0: 2048"
check v6_shuffle shuffle_grid _Z9reduce_v6PKiPij "3 128 0 in:i32:1000:neg out:i32:1 u=1000" "error 0|out0: -500500"
check v6_one_element shuffle_grid _Z9reduce_v6PKiPij "3 128 0 in:i32:1:ones out:i32:1 u=1" "error 0|out0: 1"
check cg_reduce coop_redux _Z9reduce_cgPKiPij "3 96 0 in:i32:1000:iota out:i32:1 u=1000" "error 0|out0: 499500"
check redux_sync coop_redux _Z12reduce_reduxPKjPjj "3 128 0 in:u32:1000:iota out:u32:1 u=1000" "error 0|out0: 499500"
check int4_loads vec4 _Z11reduce_int4PKiPxj "2 64 0 in:i32:1003:iota out:i64:1 u=1003" "error 0|out0: 502503"
check float4_loads vec4 _Z13reduce_float4PK6float4Pfj "2 64 0 in:f32:1000:iota out:f32:1 u=250" "error 0|out0: 499500"
export EMU_SHUFFLE_WARPS=1
check v6_shuffled_warps shuffle_grid _Z9reduce_v6PKiPij "3 256 0 in:i32:1000:neg out:i32:1 u=1000" "error 0|out0: -500500"
check v1_shuffled_warps tree_interleaved _Z9reduce_v1PKiPii "4 256 1024 in:i32:1000:iota out:i32:4 i=1000" "error 0|out0: 32640 98176 163712 204972"
unset EMU_SHUFFLE_WARPS
# atomics of every kind, last block done (atomicInc + __threadfence)
check atomics_all atomics_misc _Z11atomics_allPKiPiS1_PjS1_S1_j "4 64 0 in:i32:200:rand out:i32:1:-1000000 out:i32:1:1000000 out:u32:1 out:i32:1 out:i32:1 u=200" "error 0|out0: 499|out1: -478|out2: 200|out3: -379|out4: 2492"
check last_block atomics_misc _Z10last_blockPKfPfS1_j "4 256 0 in:f32:1000:iota out:f32:4 out:f32:1 u=1000" "error 0|out0: 32640 98176 163712 204972|out1: 499500"
# floats: NaN and infinities in fmaxf/fminf, fmaf dot product, uncontracted Kahan sum
check fmax_nan float_ops _Z11fmax_reducePKfPfj "1 32 0 in:f32:20:nan out:f32:2 u=20" "error 0|out0: inf -inf"
check dot_fma float_ops _Z3dotPKfS0_Pfj "2 64 0 in:f32:1000:frand in:f32:1000:frand out:f32:1 u=1000" "error 0|out0: 3360455"
check kahan float_ops _Z5kahanPKfPfj "1 32 0 in:f32:1000:frand out:f32:2 u=1000" "error 0|out0: 50317.5586 50545.9922"
# printf, calls, recursion
check printf printf_kernel _Z5helloifPKc "2 32 0 i=42 f=1.5 l=0" "block 0 thread 0 n=   42 x=2a f=1.500000 e=1.500000e+00 g=3 c=A s=str ld=-5 llu=123456789012|block 0 thread 1 n=   42 x=2a f=1.500000 e=1.500000e+00 g=3 c=B s=str ld=-5 llu=123456789012|error 0"
check calls recursion _Z5callsPii "1 16 0 out:i32:16 i=100" "error 0|out0: 102 103 105 110 129 226 827 5148 110 111 113 118 137 234 835 5156"
check recursion recursion _Z4fibsPii "1 16 0 out:i32:16 i=5" "error 0|out0: 3 4 4 5 6 8 11 16 24 37 58 92 3 4 4 5"
check recursion_too_deep recursion _Z4fibsPii "1 16 0 out:i32:16 i=100" "error 719|out0: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0" "calls deep: endless recursion?"
# diagnoses
check oob_global bugs _Z3oobPKiPii "2 256 0 in:i32:500:iota out:i32:500 i=500" "error 700|out0: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 ... sum=114960" "0 bytes past the end of the 2000-byte"
# thread 0 sums 32 ones and 224 slots not stored yet, which hold the poison 0xCDCDCDCD
check missing_syncthreads bugs _Z12missing_syncPKiPi "1 256 0 in:i32:256:ones out:i32:1" "error 0|out0: 336860032" "Missing __syncthreads()"
check divergent_barrier bugs _Z17divergent_barrierPi "1 64 0 out:i32:4" "error 702|out0: 0 0 0 0" "sits in divergent code"
check endless_loop bugs _Z7endlessPi "1 64 0 out:i32:2" "error 702|out0: 0 0" "bugs.cu:19: in kernel endless, block (0,0,0), thread (0,0,0): this loop never ends"
# loops that never end are named with the line of their for (not as a barrier in divergent code), and a
# spin-wait with a way out that never comes is named when the budget is spent
check step_not_assigned loops_barriers _Z17step_not_assignedPKiPi "1 64 0 in:i32:64:ones out:i32:1" "error 702|out0: 0" "loops_barriers.cu:10: in kernel step_not_assigned, block (0,0,0), thread (1,0,0): this loop never ends"
check unsigned_geq_zero loops_barriers _Z17unsigned_geq_zeroPKiPi "1 64 0 in:i32:64:ones out:i32:1" "error 702|out0: 0" "loops_barriers.cu:25: in kernel unsigned_geq_zero, block (0,0,0), thread (0,0,0): this loop never ends"
check spin_wait loops_barriers _Z9spin_waitPViPi "1 32 0 out:i32:1 out:i32:1" "error 702|out0: 0|out1: 0" "loops_barriers.cu:36: in kernel spin_wait, block (0,0,0), thread (0,0,0): the kernel did not finish after 100000000 warp instructions: this warp was still going round this loop"
# threads that return before a barrier, splitting a warp: they no longer count at it (no deadlock)
check early_return loops_barriers _Z12early_returnPKiPii "1 64 0 in:i32:64:ones out:i32:1 i=40" "error 0|out0: 40" "__syncthreads() (bar.sync) is reached by 40 of the 64 threads of the block; the other 24 (threads (40,0,0), (41,0,0), (42,0,0) and 21 more) finished without reaching it"
check guarded loops_barriers _Z7guardedPKiPii "1 64 0 in:i32:64:ones out:i32:1 i=40" "error 0|out0: 40"
check count_in_branch loops_barriers _Z15count_in_branchPi "1 32 0 out:i32:1" "error 702|out0: 0" "__syncthreads_count() (bar.red.popc) is reached by only 16 of the 32 running threads of this warp"
check uninit_global bugs _Z11uninit_readPKiPi "1 32 0 in:i32:32:uninit out:i32:32" "error 0|out0: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0" "that nothing has written"
check shared_oob bugs _Z10shared_oobPii "1 32 0 out:i32:2 i=1" "error 700|out0: 0 0" "out-of-bounds shared memory read"
# each lane's own member mask: two half-warps in one redux, ballot, CUB's logical warps of 16
h1=$(printf '120 %.0s' $(seq 16)) h2=$(printf '376 %.0s' $(seq 15))
check half_redux warp_masks _Z10half_reduxPKjPj "1 32 0 in:u32:32:iota out:u32:32" "error 0|out0: $h1${h2}376"
b1=$(printf '2147527338 %.0s' $(seq 16)) b2=$(printf '2863267840 %.0s' $(seq 15))
check half_ballot warp_masks _Z11half_ballotPKiPj "1 32 0 in:i32:32:iota out:u32:32" "error 0|out0: $b1${b2}2863267840"
check cub_warp16 warp_masks _Z10cub_warp16PKiPi "1 32 0 in:i32:32:iota out:i32:2" "error 0|out0: 120 376"
# a full-mask shuffle in a block of 2 threads reads lanes that do not exist
check tiny_block_shuffle warp_masks _Z18tiny_block_shufflePKiPi "1 2 0 in:i32:2:ones out:i32:1" "error 0|out0: 32" "in lane 0 reads the value of lane 16, but there is no thread in lane 16: the block has 2 threads"
# a warp function of the learner's called by 8 lanes: the line inside it, and the call the others never make
check callee_inlined warp_callee _Z13sum_in_branchPKiPi "1 32 0 in:i32:32:ones out:i32:1" "*" "warp_callee.cu:7 (in warp_sum): in kernel sum_in_branch"
check callee_inlined_call warp_callee _Z13sum_in_branchPKiPi "1 32 0 in:i32:32:ones out:i32:1" "*" "warp_callee.cu:23: the call of warp_sum"
check callee_noinline warp_callee _Z16called_in_branchPKiPi "1 32 0 in:i32:32:ones out:i32:1" "*" "do not call warp_sum_called here: the call at line 31 sits in a branch"
check callee_branch_inside warp_callee _Z16branch_in_calleePKiPi "1 32 0 in:i32:32:ones out:i32:1" "*" "warp_callee.cu:40 (in half_step): in kernel branch_in_callee, block (0,0,0), thread (0,0,0): __shfl_down_sync (shfl.sync) names lanes 0xffffffff as members, but lanes 0xffff0000 of them do not execute it here"
check shfl_inactive bugs _Z12shfl_partialPi "1 32 0 out:i32:32" "error 0|out0: 1 3 5 7 9 11 13 15 17 19 21 23 25 27 29 30 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31" "do not execute it here"
# a part of a warp per row, rows past the last one leaving early (kernels/row_warps.cu): the others shuffle,
# vote and __syncwarp() with a full mask; lanes that wait only to exit count as exited (PTX ISA). Lanes
# still alive that never run the shuffle, or run another one later, and a read of a leaving lane are found
check rows_early_return row_warps _Z12early_returnPKfPfii "1 64 0 in:f32:200:iota out:f32:8 i=5 i=40" "error 0|out0: 780 2380 3980 5580 7180 0 0 0"
check rows_loop_skipped row_warps _Z8row_loopPKfPfii "1 32 0 in:f32:120:iota out:f32:3 i=3 i=40" "error 0|out0: 780 2380 3980"
check rows_loop_uneven row_warps _Z8row_loopPKfPfii "1 32 0 in:f32:400:iota out:f32:10 i=10 i=40" "error 0|out0: 780 2380 3980 5580 7180 8780 10380 11980 13580 15180"
check rows_loop_vote row_warps _Z13row_loop_votePKfPjii "1 32 0 in:f32:400:iota out:u32:10 i=10 i=40" "error 0|out0: 254 254 254 254 0 0 0 0 0 0"
check rows_alive_skip row_warps _Z10alive_skipPKfPf "1 32 0 in:f32:32:iota out:f32:32" "*" "names lanes 0xffffffff as members, but lanes 0xffff0000 of them do not execute it here"
check rows_arrive_later row_warps _Z12arrive_laterPKfPfii "1 32 0 in:f32:400:iota out:f32:32 i=5 i=40" "*" "in kernel arrive_later, block (0,0,0), thread (0,0,0): __shfl_xor_sync (shfl.sync) names lanes 0xffffffff as members, but lanes 0xffffff00"
check rows_read_leaving row_warps _Z13read_returnedPKfPfi "1 32 0 in:f32:32:iota out:f32:32 i=3" "*" "reads the value of lane 24, but the thread in lane 24 has nothing left to run but its exit"
# clusters (__cluster_dims__) whose blocks synchronise through distributed shared memory without a cluster
# barrier (a release/acquire flag, atomics of every block on one word) or with the split barrier (arrive,
# work, wait); no finding
check cluster_flag cluster_flags _Z12flag_handoffPi "2 32 0 out:i32:32" "error 0|out0: 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127 128 129 130 131"
check cluster_atomics cluster_flags _Z15atomic_countersPi "8 32 0 out:i32:16" "error 0|out0: 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40"
check cluster_split_barrier cluster_flags _Z13split_barrierPi "2 64 0 out:i32:128" "error 0|out0: 1 11 21 31 41 51 61 71 81 91 101 111 121 131 141 151 161 171 181 191 201 211 221 231 241 251 261 271 281 291 301 311 321 331 341 351 361 371 381 391 ... sum=40384"
# cp.async from global into shared memory, a tail with a source size below 16 zero-filled (kernels/cp_async.cu)
check cp_async cp_async _Z10staged_sumPKfPfi "1 64 0 in:f32:250:iota out:f32:64 i=250" "error 0|out0: 28 60 92 124 156 188 220 252 284 316 348 380 412 444 476 508 540 572 604 636 668 700 732 764 796 828 860 892 924 956 988 1020 1052 1084 1116 1148 1180 1212 1244 1276 ... sum=62250"
# races on global memory: between lanes, between blocks, an atomic after another block's plain store,
# and a last-block-done without __threadfence(); the fenced one and other correct forms are accepted
check plain_total global_races _Z11plain_totalPKiPi "2 64 0 in:i32:128:ones out:i32:1" "error 0|out0: 4" "global_races.cu:6 (the read): in kernel plain_total, block (0,0,0), thread (32,0,0): reads out[0] in global memory, which thread (31,0,0) of another warp of this block wrote with nothing ordering the two: a race on global memory"
# a race names its other side too: the write, its line and its thread
check plain_total_other global_races _Z11plain_totalPKiPi "2 64 0 in:i32:128:ones out:i32:1" "error 0|out0: 4" "global_races.cu:6: the write it races with, by thread (31,0,0)"
check block_rmw global_races _Z9block_rmwPKiPi "3 32 0 in:i32:3:ones out:i32:1" "error 0|out0: 3" "in kernel block_rmw, block (1,0,0), thread (0,0,0): reads out[0] in global memory, which thread (0,0,0) of block (0,0,0) wrote"
check zero_then_atomic global_races _Z16zero_then_atomicPKiPi "2 32 0 in:i32:64:ones out:i32:1:5" "error 0|out0: 64" "block (0,0,0), thread (1,0,0): updates with an atomic out[0] in global memory, which thread (0,0,0) of the same warp wrote"
check last_block_no_fence global_races _Z10last_blockPKiPiS1_i "3 32 0 in:i32:3:iota out:i32:3 out:i32:1 i=0" "error 0|out0: 0 1 2|out1: 3" "block (2,0,0), thread (0,0,0): reads partial[0] in global memory, which thread (0,0,0) of block (0,0,0) wrote"
check last_block_fenced global_races _Z10last_blockPKiPiS1_i "3 32 0 in:i32:3:iota out:i32:3 out:i32:1 i=1" "error 0|out0: 0 1 2|out1: 3"
check correct_forms global_races _Z13correct_formsPKiPiPhS1_S1_ "2 64 0 in:i32:128:ones out:i32:1 out:i32:32 out:i32:1 out:i32:2" "error 0|out0: 128|out1: 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009 16843009|out2: 1|out3: 2 2"
# a read of shared memory that no thread wrote is reported at every n that leaves the block partly filled
for n in 1 2 31 33 100 200 255 257 300 511 513; do
    check "uninit_shared_n$n" uninit_shared _Z18tree_store_guardedPKiPij "3 256 1024 in:i32:$n:ones out:i32:3 u=$n" "*" \
        "that no thread of this block has written"
done
check uninit_shared_n512 uninit_shared _Z18tree_store_guardedPKiPij "2 256 1024 in:i32:512:ones out:i32:2 u=512" "error 0|out0: 256 256"
# half precision (__half, __half2: each operation rounded once to half) and mul24/mad24 (inline asm);
# the expected bits come from Python's IEEE half conversion
check half_ops half_mul24 _Z8half_opsPKfPji "1 32 0 in:f32:5:iota out:u32:40 i=5" "error 0|out0: 16573 49239 13123 16689 44646 13123 14446 51093 16901 44160 16519 17734 48609 16519 17919 15691 17229 16399 16538 17907 47739 16538 18289 17433 17482 17442 13668 17568 44319 17442 17634 14831 18506 16680 19503 20052 49664 19503 20706 19614"
check mul24 half_mul24 _Z9mul24_opsPKiPii "1 32 0 in:i32:8:iota out:i32:40 i=8" "error 0|out0: -1473490560 -1005524 1404460 1848398208 2146412588 1412265955 -895955 1263917 1228716582 2129744941 -76087688 -787594 1122166 529892094 2113076086 -1643584193 -680440 979208 -248075256 2096406024 1004743736 -574493 835043 -1105185468 2079734755 1984393595 -1280441 1879879 -1349272374 2062251591 496039952 -1172080 1738128 -2048096862 2045582736 -1071456553 -1064926 1595170 1468903084 2028912674"
# bfloat16 (conversions in each rounding mode, overflow and subnormals, add sub mul fma min max neg abs,
# packed pairs, compares, cvt to pairs of halves, set into a 16-bit float) and the .approx instructions where PTX defines their result (zeros, subnormals
# with and without .ftz, infinities, NaN, div.approx by |b| > 2^126); every value is checked, and the
# expected bits come from bf16_oracle.py, which computes them exactly with fractions
DRIVER_FLAGS=--all check bf16_ops bf16_approx _Z8bf16_opsPKfPji "1 32 0 in:f32:12:iota out:u32:168 i=12" "error 0|out0: 16407 49163 15976 16422 3237101326 3221962763 17096 1074871757 2 16608 0 2080603140 2 13120 16448 48528 16401 16552 1068056768 3180346768 17591 1069891516 24 18804 2 2112978418 2 16520 16490 16386 16403 16575 1082343662 1073889282 17713 1062158390 24 18932 3 2120842858 3 16536 16522 16516 16045 16533 1061044381 1082409092 17795 1034174599 4 18999 5 2125299373 1 13672 16542 16584 49256 16296 3238838228 1085489352 17838 3206955187 4294967258 19060 6 2128969446 1 49984 16562 16645 49433 49281 3250831683 1088307461 17881 3216064734 4294967196 19097 8 2131721999 1 51400 16582 16679 49548 49462 3258565078 1090863399 17922 3221700869 4294967112 19127 9 2133557035 1 52320 16603 16712 49628 49574 3264528949 1092305224 17943 3224781083 4294967008 19158 11 2135392071 1 52960 16624 16746 49694 49663 3268919944 1093747050 17964 3227795761 4294966882 19188 12 2137227108 1 53488 16642 16774 49751 49718 3272983230 1095188870 17986 3230286151 4294966732 19209 14 2139062144 1 53944 16652 16791 49803 49779 3275997946 1096630679 18007 3231793501 4294966568 19225 15 2139127680 1 54360 16786 16707 16950 17023 1117274837 1094926659 18029 1077952883 478 19240 17 2139127680 3 20912"
DRIVER_FLAGS=--all check approx_specials bf16_approx _Z15approx_specialsPj "1 32 0 out:u32:136" "error 0|out0: 0 0 2147483647 2147483647 2147483647 2147483647 2147483648 2147483647 1056964608 1056964608 2147483647 2147483647 2147483647 2147483647 3217031168 4286578688 1065353216 1065353216 2147483647 4286578688 2147483647 4286578688 4286578688 4286578688 1065353216 1065353216 4286578688 4286578688 4286578688 4286578688 4286578688 4286578688 1065353216 1065353216 2139095040 2139095040 4286578688 4286578688 2139095040 2139095040 1065353216 1065353216 1597310195 2139095040 3271426048 4286578688 2134900736 2139095040 1073741824 1073741824 1065353216 1065353216 0 0 1069547520 2139095040 1090519040 1090519040 1058262330 1058262330 1070260237 1070260237 1056964608 2139095040 2139095040 2139095040 646978941 646978941 1120358609 1120358609 234054544 2139095040 2139095040 2139095040 0 0 2139095040 2139095040 0 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2139095040 2139095040 1035181849 1035181849 1088468797 1088468797 1010633681 2139095040 524288 0 2147483647 2147483647 2147483647 2147483647 3158117329 4286578688 2139095040 2139095040 529027759 529027759 1124049647 1124049647 0 2147483647 0 0 2147483647 2147483647 2147483647 2147483647 2147483648 2147483647 1068827891 1068827891 1068827891 1068827891 3212836864 3212836864 1077936128 2139095040 1082130432 1082130432 1060439283 1060439283 1065353216 1065353216 1061158912 2139095040"
DRIVER_FLAGS=--all check half_pairs bf16_approx _Z10half_pairsPKfPji "1 32 0 in:f32:12:iota out:u32:60 i=12" "error 0|out0: 1082797670 1006648320 0 16401 16522 1042890209 1006648320 0 16325 15913 981156270 15360 16256 16207 14971 757023798 15360 16256 15780 11551 3107145108 15360 16256 1058275328 0 3179628275 15360 16256 1073348608 0 3224913961 15360 16256 1079246848 0 3249424600 15360 16256 1083572224 0 3273935240 15360 16256 1086455808 0 3293399607 15360 16256 1089339392 0 3305655014 15360 16256 1091371008 0 1107315606 15360 16256 1092829248 16896"
# named barriers: bar.arrive by producer warps, bar.sync with a thread count by consumers, barriers of
# two warps each; no race is reported across them, also with the warps in shuffled order
check producer_consumer named_barriers _Z17producer_consumerPi "1 128 0 out:i32:64" "error 0|out0: 3 9 15 21 27 33 39 45 51 57 63 69 75 81 87 93 99 105 111 117 123 129 135 141 147 153 159 165 171 177 183 189 195 201 207 213 219 225 231 237 ... sum=12096"
check barrier_pairs named_barriers _Z5pairsPi "1 128 0 out:i32:128" "error 0|out0: 224 231 238 245 252 259 266 273 280 287 294 301 308 315 322 329 336 343 350 357 364 371 378 385 392 399 406 413 420 427 434 441 0 7 14 21 28 35 42 49 ... sum=56896"
export EMU_SHUFFLE_WARPS=1
check producer_consumer_shuffled named_barriers _Z17producer_consumerPi "1 128 0 out:i32:64" "error 0|out0: 3 9 15 21 27 33 39 45 51 57 63 69 75 81 87 93 99 105 111 117 123 129 135 141 147 153 159 165 171 177 183 189 195 201 207 213 219 225 231 237 ... sum=12096"
unset EMU_SHUFFLE_WARPS
# lanes of one warp exchanging data through shared memory with no barrier: read after write (a tree
# with no __syncthreads(): the finding names the variable and element), write after read, write after
# write; the same code with __syncwarp() (or two writes of one value) gives no finding
check warp_raw_tree warp_races _Z12tree_no_syncPKiPi "1 32 0 in:i32:32:ones out:i32:1" "error 0|out0: 32" "thread (0,0,0): reads shared memory sdata[1] that thread (1,0,0) of the same warp wrote, with no barrier between them: neither __syncthreads() nor __syncwarp(). Put __syncthreads() between them"
# the write it races with, on its own line (the load before the missing barrier)
check warp_raw_tree_write warp_races _Z12tree_no_syncPKiPi "1 32 0 in:i32:32:ones out:i32:1" "error 0|out0: 32" "warp_races.cu:9: the write it races with, by thread (1,0,0)"
check warp_war warp_races _Z6rotatePii "1 32 0 out:i32:32 i=0" "error 0|out0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 0" "thread (0,0,0): writes shared memory ring[0] that thread (31,0,0) of the same warp read in the same step: a read and another lane's write of one word fall between the same two barriers"
check warp_war_syncwarp warp_races _Z6rotatePii "1 32 0 out:i32:32 i=1" "error 0|out0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 0"
check warp_waw warp_races _Z11two_writersPii "1 32 0 out:i32:32 i=1" "error 0|out0: 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1" "thread (1,0,0): writes shared memory flag that thread (0,0,0) of the same warp wrote with another value"
check warp_waw_same_value warp_races _Z11two_writersPii "1 32 0 out:i32:32 i=0" "error 0|out0: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
[ "$fails" = 0 ]
