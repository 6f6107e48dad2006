# The poll: is there work left in the queue? Take the next item and hand it
# to the model (WORK), or, once the queue is empty, go on to the report. The
# model may add items to the queue while it works; a cap on the number of
# polls keeps the loop finite.
set -eu
dir=$RAYMOND_TASK_FOLDER
limit=10

# attr escapes a value for a tag attribute.
attr() {
  local v=${1//&/&amp;}
  v=${v//\"/&quot;}
  v=${v//</&lt;}
  printf '%s' "${v//>/&gt;}"
}

polls=$(( $(cat "$dir/polls") + 1 ))
echo "$polls" > "$dir/polls"
item=$(head -n 1 "$dir/queue")
done_count=$(wc -l < "$dir/done")
if [ -z "$item" ]; then
  echo "<goto input=\"$done_count files tidied in $((polls - 1)) rounds\">REPORT</goto>"
  exit 0
fi
if [ "$polls" -gt "$limit" ]; then
  left=$(wc -l < "$dir/queue")
  echo "<result>Stopped after $limit rounds: $done_count files tidied, $left still queued in $dir/queue.</result>"
  exit 0
fi
tail -n +2 "$dir/queue" > "$dir/queue.next"
mv "$dir/queue.next" "$dir/queue"
printf '%s\n' "$item" >> "$dir/done"
echo "<goto input=\"$(attr "$item")\">WORK</goto>"
