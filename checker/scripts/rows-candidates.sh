#!/usr/bin/env bash
# rows-candidates.sh - for course developers, on a GPU machine with PyTorch: exercise 16's reference beside
# each candidate of checker/bench/rows-candidates/ (a patch of the reference that changes one thing, or
# undoes one change), at every row of make bench's Part III table, in one process (rows_candidates.py);
# then, where ncu is installed, the profile of each line of PROFILES below (profile_rows.sh --list). The
# numbers lesson 16 quotes for its design choices come from here. Writes $OUT (build/gpu/rows-candidates
# without it): candidates.csv, candidates.txt, profiles.txt.
set -u
. checker/scripts/lib.sh
out=${OUT:-$BUILD/gpu/rows-candidates}
work="$BUILD/gpu/rows-candidates/libs"
mkdir -p "$out" "$work"
build() {   # SOURCE NAME: the contract's functions as a library
    rows_library 16 "$1" "$work/$2.so" || { echo "$2 did not build:"; head -n 5 "$work/$2.so.log"; }
}
cp solutions/ex16_row_mapping.cu "$work/reference.cu"
names=(reference)
for patch in checker/bench/rows-candidates/*.patch; do
    name=$(basename "$patch" .patch)
    corpus_apply "$patch" "$work/$name.cu" || exit 1
    names+=("$name")
done
export -f build rows_library
export work
printf '%s\n' "${names[@]}" | xargs -P "$(nproc)" -I{} bash -c 'build "$work/{}.cu" {}'
libs=()
for name in "${names[@]}"; do libs+=("$work/$name.so"); done
python3 checker/bench/rows_candidates.py "$out/candidates.csv" "${libs[@]}" | tee "$out/candidates.txt"
command -v ncu >/dev/null || { say "No ncu here: no profiles."; exit 0; }
# PROFILES: a build, a function and a shape, for the rows that lesson 16 explains with a profile.
checker/bench/profile_rows.sh --list <<PROFILES | tee "$out/profiles.txt"
$work/reference.so layernorm_rows_f16 1048576x64
$work/ex16_one_pack_a_lane.so layernorm_rows_f16 1048576x64
$work/reference.so softmax_rows 1048576x64
$work/ex16_one_pack_a_lane.so softmax_rows 1048576x64
$work/reference.so layernorm_rows_f16 8192x8192
$work/ex16_weights_test_in_loop.so layernorm_rows_f16 8192x8192
$work/ex16_l1_carveout_66.so layernorm_rows_f16 8192x8192
$work/reference.so rmsnorm_rows_bf16 8192x8192
$work/reference.so softmax_rows_f16 65536x1024
$work/reference.so layernorm_rows_f16 256x262144
$work/ex16_cluster_16_slots.so layernorm_rows_f16 256x262144
$work/reference.so row_stats_rows_f16 8192x8192
PROFILES
