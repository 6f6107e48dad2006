# Hand the implementer the next layer of tasks.md, in the conversation it
# already has (the first layer in a fresh one), or, after the last layer,
# submit the work for review. The layer just done is read from the input
# IMPLEMENT.md passes back ("layer 2 of 3 (Logic) of …"), none from
# 1_START.sh, so a step run again after a crash hands out the same layer.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/agentd.sh"

dir=$(change)
done=0
if [[ ${RAYMOND_INPUT:-} =~ ^layer\ ([0-9]+)\ of\  ]]; then
  done=${BASH_REMATCH[1]}
fi
n=$((done + 1))
total=$(wc -l <"$RAYMOND_TASK_FOLDER/layers" | tr -d ' ')
if [ "$n" -gt "$total" ]; then
  echo "<goto>SUBMIT</goto>"
  exit 0
fi
name=$(sed -n "${n}p" "$RAYMOND_TASK_FOLDER/layers")
what="layer $n of $total ($name) of $dir/tasks.md"
say "impl $dir: layer $n of $total: $name"
if [ "$n" -eq 1 ]; then
  printf '<reset input="%s">IMPLEMENT</reset>\n' "$(attr "$what")"
else
  printf '<goto input="%s">IMPLEMENT</goto>\n' "$(attr "$what")"
fi
