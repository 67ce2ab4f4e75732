# T5 (4 x H200): the tree given (COMMIT: bsr_fit_rows). Where K2 is the H200's shipped kernel at a
# block size tma also takes (bs 4, 6, 7, 8): every real matrix expanded, bsr with kernel=k2 (its
# rows rule on) and kernel=tma, csr_balanced beside; a block size a GPU. Data for a kernel rule by
# the matrix's block rows (T2: tma beat K2 on most small or short-row expansions at bs 6 and 7).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit_cli | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
NAMES=$(tail -n +2 .deps/matrices/MANIFEST.tsv | cut -f1)
g=0
for bs in 4 6 7 8; do
  m=""; for n in $NAMES; do m="$m expand_bs${bs}_$n"; done
  ( CUDA_VISIBLE_DEVICES=$g OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t$g.tsv timeout 400 build-gpu/spmvkit bench $m \
      --formats csr_balanced,bsr --params "bsr:kernel=k2|kernel=tma" --reps 20 --warmup 5 --builds 2 --no-check \
      --backend cuda --time-limit 380 --json $OUT/bs$bs.json > $OUT/bs$bs.txt 2>&1
    echo "bs $bs rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt ) &
  g=$((g + 1))
done
wait
cat $OUT/summary.txt
cd $OUT && gzip -9 *.json *.txt; gunzip summary.txt.gz; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
