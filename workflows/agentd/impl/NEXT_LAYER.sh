# Hand the implementer the next layer of tasks.md, in the conversation it
# already has (the first layer in a fresh one), or, after the last layer,
# submit the work for review.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/agentd.sh"

dir=$(change)
n=$(($(cat "$RAYMOND_TASK_FOLDER/layer") + 1))
total=$(wc -l <"$RAYMOND_TASK_FOLDER/layers" | tr -d ' ')
if [ "$n" -gt "$total" ]; then
  echo "<goto>SUBMIT</goto>"
  exit 0
fi
echo "$n" >"$RAYMOND_TASK_FOLDER/layer"
name=$(sed -n "${n}p" "$RAYMOND_TASK_FOLDER/layers")
if [ "$name" = "every task" ]; then
  what="every task of $dir/tasks.md"
else
  what="the $name layer ($n of $total) of $dir/tasks.md"
fi
say "impl $dir: layer $n of $total: $name"
if [ "$n" -eq 1 ]; then
  printf '<reset input="%s">IMPLEMENT</reset>\n' "$(attr "$what")"
else
  printf '<goto input="%s">IMPLEMENT</goto>\n' "$(attr "$what")"
fi
