# F2 (1 GPU): runtime call costs (scripts/api_cost_probe.cu); every format's setup on the three
# small csr-suite matrices, the median of 7 builds, with the build profile, cudaMalloc vs the pool.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
nvcc -arch=sm_90 -std=c++17 -O2 -o /tmp/probe scripts/api_cost_probe.cu && /tmp/probe > $OUT/probe.txt 2>&1 &
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
wait
for pool in 0 1; do
  SPMVKIT_DEVICE_POOL=$pool SPMVKIT_BUILD_PROFILE=1 OMP_NUM_THREADS=16 build-gpu/spmvkit bench bcsstk13 rajat01 Groebner_id2003_aug \
    --backend cuda --setup-reps 7 --reps 20 --json $OUT/setup_pool$pool.json > $OUT/setup_pool$pool.txt 2> $OUT/prof_pool$pool.txt
  echo "pool=$pool rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
  /usr/bin/python3 bench/report.py setup $OUT/setup_pool$pool.json > $OUT/setup_table_pool$pool.md 2>&1
done
cat $OUT/summary.txt $OUT/probe.txt
for pool in 0 1; do echo "== pool $pool"; grep -E "^\| (bcsstk13|rajat01|Groebner)" $OUT/setup_table_pool$pool.md | awk -F'|' '{print $2,$3,$5,$6,$12,$13,$15,$16}'; done
cd $OUT && gzip -9 *.json; tar czf /tmp/all.tgz . && find . -mindepth 1 -delete && mv /tmp/all.tgz . && ls -la all.tgz
