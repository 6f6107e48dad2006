# The poll: is there work left in the queue? Take the next item and hand it
# to the model (WORK), or, once the queue is empty, go on to the report. The
# model may add items to the queue while it works; a cap on the number of
# polls keeps the loop finite.
set -eu
dir=$RAYMOND_TASK_FOLDER
limit=10

# attr escapes a value for a tag attribute: & " < > as entities. With sed:
# in ${v//"/&quot;} bash 5.2 reads the & as the text it replaces.
attr() {
  printf '%s' "$1" | sed -e 's/&/\&amp;/g' -e 's/"/\&quot;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'
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
