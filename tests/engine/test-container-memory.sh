#!/bin/bash
# The CPU backend inside a memory cgroup (a container's limit) smaller than
# an hbp frame needs whole, on a machine with more memory free than that:
# the frame is cut into bands and finishes, where the system's free memory
# alone let it grow until the kernel killed it.  Needs a memory cgroup this
# process may make (root, cgroup v1's memory controller or v2 with it
# delegated); skipped where there is none.  args: sd-bench.
set -uo pipefail
sd_bench=$1
limit_mb=600

own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
if [ -n "$own" ] && [ -d "/sys/fs/cgroup/memory$own" ]; then
  group=/sys/fs/cgroup/memory${own%/}/sd-test-$$
  limit_file=memory.limit_in_bytes
else
  own=$(awk -F: '$1 == 0 && $2 == "" { print $3 }' /proc/self/cgroup)
  parent=/sys/fs/cgroup${own%/}
  grep -qw memory "$parent/cgroup.subtree_control" 2>/dev/null ||
    { echo "no memory cgroup to make here: skipped"; exit 77; }
  group=$parent/sd-test-$$
  limit_file=memory.max
fi
mkdir "$group" 2>/dev/null ||
  { echo "cannot make a memory cgroup ($group): skipped"; exit 77; }
trap 'rmdir "$group"' EXIT
echo $((limit_mb << 20)) > "$group/$limit_file" ||
  { echo "cannot set $group/$limit_file: skipped"; exit 77; }

# about 1 GB whole (the engine's estimate, within a few percent of the
# resident size): hbp's messages at 640x360 with 128 disparities
out=$(bash -c 'echo $$ > "$1/cgroup.procs" && exec "$2" --synthetic 640x360 \
  --backend cpu --algorithm hbp --num-disparities 128 --repeat 1' _ \
  "$group" "$sd_bench" 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "sd-bench ended with $rc in $limit_mb MB"; exit 1; }
grep -q "^time: .*; bands of [0-9]* rows" <<< "$out" ||
  { echo "no bands in $limit_mb MB"; exit 1; }
echo "banded within $limit_mb MB"
