#!/usr/bin/env bash
# grade-file.sh NN FILE - `make grade-file`: grades any kernel file against exercise NN's suite, for course
# developers. A corpus entry (checker/corpus or checker/unusual, a .patch) is applied to its reference first.
set -u
. checker/scripts/lib.sh
nn=${1:-} file=${2:-}
require_exercise "$nn" grade-file
[ -f "$file" ] || { say "There is no file '$file' to grade: say which, e.g. make grade-file EX=08 FILE=path/to/kernel.cu"; exit 2; }
out="$BUILD/$BACKEND/grade-file/ex$nn"
if [[ $file == *.patch ]]; then
    src="$out/$(basename "$file" .patch).cu"
    corpus_apply "$file" "$src" || exit 2
    file=$src
fi
checker/scripts/build-suite.sh "$nn" "$file" "$out" && "$out/suite"
