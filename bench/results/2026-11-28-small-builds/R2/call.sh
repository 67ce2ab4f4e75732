# R2 (1 GPU): the upload experiment (upload_probe.cu beside this file; the call ran it from
# .deps/probe/): host copies into pinned memory by 1-8 spinning threads, the transfer alone,
# a condition variable's wake-up, and another thread's calls during a pageable copy.
nproc; nvcc -arch=sm_90 -std=c++17 -O2 -o /tmp/up upload_probe.cu && /tmp/up
