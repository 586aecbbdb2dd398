#!/bin/bash
# The CPU backend inside a memory cgroup (a container's limit) smaller than
# an hbp or sgm frame needs whole, on a machine with more memory free:
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
bash -c 'echo $$ > "$1/cgroup.procs"' _ "$group" 2>/dev/null ||
  { echo "cannot move a process into $group: skipped"; exit 77; }

# each about 1 GB whole (the engine's estimate, within a few percent of
# the resident size): hbp's messages at 640x360 with 128 disparities, sgm's
# cost volume and sum at 1600x900 with 208 (the automatic range)
failed=0
for run in "--synthetic 640x360 --algorithm hbp --num-disparities 128" \
    "--synthetic 1600x900 --algorithm sgm"; do
  out=$(bash -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' _ \
    "$group" "$sd_bench" $run --backend cpu --repeat 1 2>&1)
  rc=$?
  echo "$out"
  if [ $rc -ne 0 ]; then
    echo "$run: sd-bench ended with $rc in $limit_mb MB"; failed=1
  elif ! grep -q "^time: .*; bands of [0-9]* rows" <<< "$out"; then
    echo "$run: no bands in $limit_mb MB"; failed=1
  else
    echo "$run: banded within $limit_mb MB"
  fi
done
exit $failed
