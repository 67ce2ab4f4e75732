# D2 (4 GPUs): full build; select tests; auto's selection (as D1); the small csr-suite matrices' build profiles in a warm
# process (--builds 3: the last build of each format is the steady state) and their CUDA API counts (nsys, if present);
# then every GPU test (scripts/gpu_tests.py) until the deadline.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
export NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
timeout 60 build-gpu/tests/spmvkit_select_tests --gtest_brief=1 > $OUT/select.log 2>&1; echo "select tests rc=$?" >> $OUT/summary.txt
for m in reservoir_bs2_153 stencil5_4000 reservoir_bs32_24; do
  SPMVKIT_BUILD_PROFILE=1 CUDA_VISIBLE_DEVICES=0 OMP_NUM_THREADS=16 timeout 60 build-gpu/spmvkit bench $m --backend cuda --reps 5 --formats auto,auto --params 'auto:tune=0' > $OUT/prof_$m.txt 2>&1
  CUDA_VISIBLE_DEVICES=0 OMP_NUM_THREADS=16 timeout 60 build-gpu/spmvkit bench $m --backend cuda --reps 5 --formats auto,auto --params 'auto:tune=0' --json $OUT/sel_$m.json > $OUT/sel_$m.txt 2>&1
  echo "== selection $m rc=$?" >> $OUT/summary.txt
done
F=csr_scalar,csr_vector,csr_balanced,ell,hyb,hec,sellp,csr3,suraa,suraa_static,bsr,bsr_balanced,auto,cusparse_csr_alg1,cusparse_csr_alg2
for m in rajat01 bcsstk13 Groebner_id2003_aug; do
  SPMVKIT_BUILD_PROFILE=1 CUDA_VISIBLE_DEVICES=1 OMP_NUM_THREADS=16 timeout 60 build-gpu/spmvkit bench $m --backend cuda --reps 5 --builds 3 --formats $F --json $OUT/setup_$m.json > $OUT/prof_setup_$m.txt 2>&1
  echo "== setup profile $m rc=$?" >> $OUT/summary.txt
done
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: ${NSYS:-none}" >> $OUT/summary.txt
if [ -n "$NSYS" ]; then
  for f in csr_vector sellp cusparse_csr_alg1; do
    CUDA_VISIBLE_DEVICES=1 timeout 90 $NSYS profile -t cuda -o /tmp/ns_$f --force-overwrite true build-gpu/spmvkit bench rajat01 --backend cuda --reps 5 --builds 5 --formats $f > /dev/null 2>&1
    timeout 60 $NSYS stats --report cuda_api_sum --format csv -o $OUT/nsys_$f /tmp/ns_$f.nsys-rep > /dev/null 2>&1
    echo "== nsys $f rc=$?" >> $OUT/summary.txt
  done
fi
echo "profiles done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
mkdir -p $OUT/gt
left=$(( ${TESTS_END_S:-570} - ($(date +%s) - T0) ))
DEADLINE=$(( $(date +%s) + left )) timeout $((left + 15)) python3 scripts/gpu_tests.py build-gpu $OUT/gt > $OUT/gt/tests.txt 2>&1
echo "gpu tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt; head -16 $OUT/gt/tests.txt
cd $OUT && gzip -9 *.json 2>/dev/null; tar czf /tmp/all.tgz . && find . -mindepth 1 -delete && mv /tmp/all.tgz . && ls -la all.tgz
