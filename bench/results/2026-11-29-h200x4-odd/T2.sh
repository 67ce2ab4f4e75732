# T2 (4 x H200): the tree given (COMMIT). BSR's kernels on the expansions where T1 measured BSR far
# behind CSR (K2 at bs 6, 7, 10, 11; K3 at bs 29): each matrix with bsr as shipped, kernel=k3,
# K2 with one block row an array (n_brows_ta=1), tma where bs <= 9, and csr_balanced; a GPU each.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit_cli | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
B="Groebner_id2003_aug mbeacxc bcsstk16 G51 hangGlider_2 bayer10 rajat01 nnc1374 dwt_878"
run() {  # GPU, name, block sizes, params
  local g=$1 name=$2 sizes=$3 params=$4 m=""
  for bs in $sizes; do for b in $B; do m="$m expand_bs${bs}_$b"; done; done
  CUDA_VISIBLE_DEVICES=$g OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t$g.tsv timeout 400 build-gpu/spmvkit bench $m \
    --formats csr_balanced,bsr --params "$params" --reps 20 --warmup 5 --builds 2 --no-check --backend cuda \
    --json $OUT/$name.json > $OUT/$name.txt 2>&1
  echo "$name rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
}
run 0 k2small "6 7" "bsr:kernel=k2|kernel=k3|kernel=tma|kernel=k2,n_brows_ta=1" &
run 1 k2mid "10 11" "bsr:kernel=k2|kernel=k3|kernel=k2,n_brows_ta=1|kernel=k2,n_brows_ta=1,n_ta=1" &
run 2 k3 "28 29 30" "bsr:kernel=k3|kernel=k2" &
run 3 k2big "8 12" "bsr:kernel=k2|kernel=k3|kernel=k2,n_brows_ta=1" &
wait
cat $OUT/summary.txt
cd $OUT && gzip -9 *.json; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
