# Entry state of poll-loop: turn the run's input (file names separated by
# spaces or new lines) into a queue in this agent's task folder, one item per
# line, then start polling it. A script state: no model, no cost.
set -euf
dir=$RAYMOND_TASK_FOLDER
for item in ${RAYMOND_INPUT:-}; do
  printf '%s\n' "$item"
done > "$dir/queue"
: > "$dir/done"
echo 0 > "$dir/polls"
n=$(wc -l < "$dir/queue")
if [ "$n" -eq 0 ]; then
  echo '<result>Nothing to do: give the files to tidy as --input.</result>'
  exit 0
fi
echo "<print>$n files queued in $dir/queue</print>"
echo '<goto>POLL</goto>'
