#!/bin/sh
# Stands in for ptxas in ptxas-check.test: prints a fixed -v report (an entry
# that calls a non-inlined function with its own frame) for the -arch given.
arch=$(printf '%s\n' "$@" | sed -n 's/^-arch=//p')
cat >&2 <<REPORT
ptxas info    : 0 bytes gmem
ptxas info    : Function properties for helper
    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'caller' for '$arch'
ptxas info    : Function properties for caller
    32 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 4096 bytes smem, 48 bytes cumulative stack size, 360 bytes cmem[0]
ptxas info    : Compile time = 1.000 ms
REPORT
