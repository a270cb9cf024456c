# as_float.sed - turns a reference solution that sums ints into the same kernel summing floats, for the
# float half of `make bench` (checker/scripts/bench.sh). The references keep to a few forms for their
# data, which this rewrites; indices, counts and launch sizes stay int. bench checks every float result,
# and `make test` builds and runs these on the emulator (checker/bench/emu_check.sh), so a reference
# written in another form shows up there as a wrong result, not as a wrong timing.
s/\<const int \*/const float */g
s/\<int \*(d_|h_)/float *\1/g
s/__shared__ int\>/__shared__ float/g
s/\<int sum\>/float sum/g
s/__device__ int\>/__device__ float/g
s/\(int v\)/(float v)/g
s/sizeof\(int\)/sizeof(float)/g
s/\<int4\>/float4/g
