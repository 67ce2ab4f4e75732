# W4 (one H200): the tree given (COMMIT: W1's library). Why a process's first build is slower
# (W1's suites: SELL-P on stencil27_150 6.5 ms, 23 SpMV-equivalents, first matrix of the process;
# 5.1 ms, 17.9, when the ell suite built it again): stencil27_150, eight formats, 5 timed setups
# each (the first apart as setup_first_ms), with CUDA's lazy module loading (the default) and with
# CUDA_MODULE_LOADING=EAGER; then the lazy run again under SPMVKIT_BUILD_PROFILE=1 (phases).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive; DEADLINE=$((T0 + ${BUDGET:-210}))
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
one() {  # TAG ENV...
  local tag=$1 left=$((DEADLINE - $(date +%s))); shift
  [ $left -lt 25 ] && { echo "$tag: not started" >> $OUT/summary.txt; return; }
  local t0=$(date +%s)
  env "$@" OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/dev/null timeout $left build-gpu/spmvkit bench stencil27_150 \
    --formats csr_balanced,ell,hyb,hec,sellp,suraa_static,bsr,cusparse_csr_alg1 --setup-reps 5 --reps 20 \
    --warmup 5 --backend cuda --json $OUT/w4_$tag.json > $OUT/w4_$tag.txt 2>&1
  echo "$tag: rc=$? in $(( $(date +%s) - t0 ))s" >> $OUT/summary.txt
}
one lazy CUDA_MODULE_LOADING=LAZY
one eager CUDA_MODULE_LOADING=EAGER
one profile CUDA_MODULE_LOADING=LAZY SPMVKIT_BUILD_PROFILE=1
cat $OUT/summary.txt
cd $OUT && gzip -9 *.json *.txt 2>/dev/null; gunzip summary.txt.gz; tar czf /tmp/all.tgz --remove-files * 2>/dev/null; mv /tmp/all.tgz .; ls -la
