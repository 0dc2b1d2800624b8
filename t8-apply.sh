#!/bin/bash
cd /tmp/probe-perm
A=/tmp/probe-perm/run/apply/io.viper.settings.Apply
for u in root vptc; do
 echo "== $u apply status"; ./as.sh $u apply status --apply-socket $A 2>&1 | tail -4
 echo "== $u apply --dry-run"; ./as.sh $u apply --dry-run --apply-socket $A 2>&1 | tail -3
 echo "== $u --json apply --dry-run"; ./as.sh $u --json apply --dry-run --apply-socket $A 2>&1 | tail -2 | cut -c1-300
done
