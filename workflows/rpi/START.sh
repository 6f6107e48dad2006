# Entry state of rpi. Saves the task (the run's --input) in the task folder,
# where every later state finds it, and notes when the run started, so that
# the summary can list the files changed since. Then hands over to NEXT.sh,
# which decides the phase from the files in the task folder.
#
# A new run always starts clean, in its own task folder. If an earlier run of
# the same task never reached its summary, this says how to continue it
# (raymond resume keeps that run's task folder, so its finished phases and
# items are skipped) instead of copying its files: see README.md.
set -euo pipefail
dir=$RAYMOND_TASK_FOLDER
task=$(if [ -n "${RAYMOND_INPUT_FILE:-}" ]; then cat "$RAYMOND_INPUT_FILE"; else printf '%s' "${RAYMOND_INPUT:-}"; fi)
if [ -z "${task//[[:space:]]/}" ]; then
  echo '<result>Nothing to do: give the task as --input, for example --input "Add a --json flag to the list command".</result>'
  exit 0
fi

# A resumed step finds these already written: it keeps them, so the start
# time stays the first one.
if [ ! -f "$dir/input.txt" ]; then
  printf '%s\n' "$task" > "$dir/input.txt.tmp"
  mv "$dir/input.txt.tmp" "$dir/input.txt"
fi
[ -f "$dir/started" ] || : > "$dir/started"

# Earlier runs of the same task that have not reached their summary: they
# stopped, or they are still running (a script cannot tell). With the
# default task folders (.raymond/tasks/<run id>/main) a run's siblings are
# two levels up; with another task_folder_pattern nothing matches and no
# hint is given.
here=$(cd "$dir" && pwd -P)
for other in "$dir"/../../*/main; do
  [ -f "$other/input.txt" ] || continue
  [ "$(cd "$other" && pwd -P)" != "$here" ] || continue
  [ ! -f "$other/summarizing" ] || continue
  cmp -s "$other/input.txt" "$dir/input.txt" || continue
  run=$(basename "$(dirname "$other")")
  echo "<print>note: run ${run//[<>]/} has the same task and has not reached its summary (raymond status ${run//[<>]/} says whether it is still running); to continue it instead of starting over: raymond resume ${run//[<>]/}</print>"
done
echo '<goto>NEXT.sh</goto>'
