#!/usr/bin/env bash
# sass.sh - the "What the SASS does" boxes of the lessons: the machine code nvcc makes of a reference kernel,
# cut to the lines a lesson explains. No GPU is needed: nvcc compiles for sm_90 (GPU_ARCH=sm_XX for another)
# and cuobjdump disassembles.
#   sass.sh NAME      print one box (a lesson shows exactly this, below the command)
#   sass.sh --list    the boxes and what each one shows
#   sass.sh --check   compare every box in lessons/ and exercises/ with what this machine's nvcc makes
set -u
. checker/scripts/lib.sh
arch=${GPU_ARCH:-sm_90}
[ "$arch" = native ] && arch=sm_90
work="$BUILD/sass"

# The boxes, one a line: NAME; EXERCISE; SOURCE; SELECTION; WHAT. SOURCE "float:FILE" is FILE summing
# floats (checker/bench/as_float.sed); "FILE#NAME" keeps the kernels whose mangled name contains NAME. SELECTION: "loop" (the kernel's first loop, from its first
# instruction to the branch back), "grep:REGEX" (the lines that match), "range:FIRST:LAST:REGEX" (from the
# first line matching FIRST to the next one matching LAST, the lines matching REGEX).
boxes() {
    cat <<'BOXES'
atomic-int; 01; solutions/ex01_atomic.cu; grep:VOTEU|UFLO|REDUX|REDG|ATOMG; exercise 01's atomicAdd on ints
atomic-float; 01; float:solutions/ex01_atomic.cu; grep:VOTEU|UFLO|REDUX|REDG|ATOMG; exercise 01's atomicAdd on floats
tree-v1; 02; solutions/v1_interleaved.cu; loop; one step of v1's tree (the loop's body)
tree-strided; 03; solutions/v2_strided_index.cu; loop; one step of the strided index's tree
tree-v2; 03; solutions/v2_sequential.cu; loop; one step of v2's tree (the loop's body)
v6-loop; 07; solutions/v6_shuffle.cu; loop; v6's grid-stride loop, four elements per turn
v6-shuffles; 07; solutions/v6_shuffle.cu; range:SHFL:BAR.SYNC:SHFL|IADD; v6's first warp_reduce
reduce-add-sync; 07; checker/unusual/ex07/reduce_add_sync.patch; grep:SHFL|REDUX; v6 with __reduce_add_sync
ex09-max; 09; solutions/ex09_beyond_sum.cu#MaxOp7Element; loop; the grid-stride loop of reduce_max
ex09-dot; 09; solutions/ex09_beyond_sum.cu#SumOp7Product; loop; the grid-stride loop of dot_product
BOXES
}

nvcc_version() { ${NVCC:-nvcc} --version | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1/p'; }

# The disassembly of SOURCE's kernel, one "ADDRESS PREDICATE INSTRUCTION" line per instruction.
disassemble() {
    local nn=$1 src=${2%%#*} name=$3 kernel=${2#*#} include=()
    [ "$kernel" = "$2" ] && kernel=""
    if [ "${src#float:}" != "$src" ]; then
        sed -E -f checker/bench/as_float.sed "${src#float:}" >"$work/$name.cu" || return 1
        src="$work/$name.cu"
    else
        include=(-include "checker/contracts/ex$nn.h")   # the float file's types differ from the contract's
        if [ "${src%.patch}" != "$src" ]; then   # a corpus or unusual entry: its patch applied to its solution
            corpus_apply "$src" "$work/$name.cu" || return 1
            src="$work/$name.cu"
        fi
    fi
    checker/scripts/nvcc-cached.sh "$work/$name.cubin" "$src" -arch="$arch" -O3 -cubin "${include[@]}" >"$work/$name.log" 2>&1 ||
        { say "sass.sh: $src did not compile for $arch:"; head -n 5 "$work/$name.log"; return 1; }
    cuobjdump -sass "$work/$name.cubin" >"$work/$name.sass" 2>&1 ||
        { say "sass.sh: cuobjdump could not disassemble $src:"; head -n 3 "$work/$name.sass"; return 1; }
    awk -v kernel="$kernel" '/Function :/ { keep = index($0, kernel) > 0 }
             keep && /^[ \t]*\/\*[0-9a-f]+\*\// {
                 line = $0; sub(/;.*/, ";", line); sub(/^[ \t]*/, "", line)
                 addr = substr(line, 1, 8); rest = substr(line, 9); sub(/^[ \t]*/, "", rest)
                 pred = ""
                 if (rest ~ /^@/) { pred = rest; sub(/ .*/, "", pred); sub(/^@[!A-Z0-9]+ +/, "", rest) }
                 if (rest !~ /^NOP/) printf "%s %5s %s\n", addr, pred, rest }' "$work/$name.sass"
}

# The lines of one box, cut out of the disassembly on stdin.
select_lines() {
    local how=$1 spec first last
    case $how in
    loop)   # the first branch to an earlier address closes the loop that starts at that address
        awk '{ line[NR] = $0; addr[NR] = substr($0, 3, 4) }
             /BRA 0x/ && !to { t = $0; sub(/.*BRA 0x/, "", t); sub(/[^0-9a-f].*/, "", t)
                               while (length(t) < 4) t = "0" t
                               if (t < addr[NR]) { from = t; to = NR } }
             END { for (i = 1; i <= to; i++) if (addr[i] >= from) print line[i] }' ;;
    grep:*) grep -E "${how#grep:}" ;;
    range:*)
        spec=${how#range:}; first=${spec%%:*}; spec=${spec#*:}; last=${spec%%:*}
        awk -v first="$first" -v last="$last" '!on && $0 ~ first { on = 1 } on { print } on && $0 ~ last { exit }' |
            grep -E "${spec#*:}" ;;
    esac
}

# Prints box NAME: a line that says what it is, from which file, for which GPU and by which nvcc, then
# the instructions.
box() {
    local name nn src how what file
    while IFS=';' read -r name nn src how what; do
        [ "$name" = "$1" ] || continue
        nn=${nn# } src=${src# } how=${how# } what=${what# }
        file=${src#float:} file=${file%%#*}
        printf '%s\n' "$what: $file, $arch, nvcc $(nvcc_version)"
        disassemble "$nn" "$src" "$name" | select_lines "$how"
        return
    done < <(boxes)
    say "sass.sh: there is no box '$1'. The boxes: $(boxes | cut -d';' -f1 | tr '\n' ' ')"
    return 2
}

# Every box in the lessons: a fenced code block whose first line is "$ checker/scripts/sass.sh NAME", the
# box's lines after it. A box made by another nvcc version is reported and not compared.
check() {
    local failed=0 compared=0 skipped=0 made here file name
    here=$(nvcc_version)
    rm -f "$work"/box-*.txt   # made afresh on every check
    while IFS=: read -r file _ name; do
        name=${name#*sass.sh }
        awk -v cmd="\$ checker/scripts/sass.sh $name" '$0 == cmd { on = 1; next } on && /^```/ { exit } on' \
            "$file" >"$work/lesson.txt"
        made=$(sed -n '1s/.*, nvcc \([0-9.]*\)$/\1/p' "$work/lesson.txt")
        if [ "$made" != "$here" ]; then
            say "  - $file: $name was made by nvcc $made, this is nvcc $here: not compared"
            skipped=$((skipped + 1))
            continue
        fi
        compared=$((compared + 1))
        # Each box is made once, however many lessons (and editions) show it.
        [ -s "$work/box-$name.txt" ] || box "$name" >"$work/box-$name.txt" || rm -f "$work/box-$name.txt"
        if [ -s "$work/box-$name.txt" ] && cmp -s "$work/lesson.txt" "$work/box-$name.txt"; then
            say "  ✓ $file: $name"
        else
            say "  ✗ $file: $name is not what sass.sh prints now:"
            diff "$work/lesson.txt" "$work/box-$name.txt" | head -n 10 | sed 's/^/      /'
            failed=$((failed + 1))
        fi
    done < <(grep -rn '^\$ checker/scripts/sass.sh ' lessons exercises --include='*.md')
    say "sass boxes: $compared compared, $failed different, $skipped made by another nvcc"
    [ $failed = 0 ]
}

mkdir -p "$work"
if ! command -v cuobjdump >/dev/null 2>&1 || ! command -v nvdisasm >/dev/null 2>&1; then
    say "sass.sh needs cuobjdump and nvdisasm, the CUDA toolkit's disassemblers, and they are not on PATH."
    say "A toolkit without them: pip install --target DIR nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm, then"
    say "add DIR/nvidia/cu13/bin to PATH (.ci/run does this)."
    exit 2
fi
case "${1:-}" in
--list) boxes | awk -F'; ' '{ printf "  %-16s %s\n", $1, $5 }' ;;
--check) check ;;
"" | -*) say "usage: checker/scripts/sass.sh NAME | --list | --check"; exit 2 ;;
*) box "$1" ;;
esac
