#!/bin/bash
set -u
L=$OUT/logs; mkdir -p $L
xz -dc .gpu-pack/bundle.tar.xz | tar -xf -
xz -dc .gpu-pack/cuprite-old.xz > /tmp/cuprite-old; chmod +x /tmp/cuprite-old
cli=.gpu/bin-cuprite
for f in cuda::index cuda::stats cuda::elementwise; do
(cd crates/cuprite-array && CUPRITE_REQUIRE_GPU=1 timeout 200 ../../.gpu/test-cuprite-array $f) > $L/tests_$f.log 2>&1
echo "tests $f rc=$?" >> $L/sum.txt
grep -E "test result|FAILED|panicked|failed" $L/tests_$f.log | head -20 >> $L/sum.txt
done
timeout 120 python3 benches/peers/torch_stats.py --json $L/torch_stats.json > $L/peer_stats.log 2>&1
timeout 120 python3 benches/peers/torch_index.py --json $L/torch_index.json > $L/peer_index.log 2>&1
for cfg in "3 264" "1 264" "2 264" "3 528" "2 132"; do
  set -- $cfg
  CUPRITE_GRAM_LEVELS=$1 CUPRITE_GRAM_TILES=$2 timeout 100 $cli bench stats/cov --peers $L/torch_stats.json > $L/cov.log 2>&1
  echo "levels $1 tiles $2:" >> $L/sum.txt; grep -E "vs torch" $L/cov.log | head -3 >> $L/sum.txt
done
for r in 1 2; do
timeout 200 /tmp/cuprite-old bench index/ --peers $L/torch_index.json > $L/idx_old.log 2>&1
echo "OLD:" >> $L/sum.txt; grep -E "vs |^index/" $L/idx_old.log >> $L/sum.txt
timeout 200 $cli bench index/ --peers $L/torch_index.json > $L/idx_new.log 2>&1
echo "NEW:" >> $L/sum.txt; grep -E "vs |^index/" $L/idx_new.log >> $L/sum.txt
done
tar -czf $OUT/logs.tgz -C $OUT logs
cat $L/sum.txt
