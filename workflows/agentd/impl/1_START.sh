# Entry of impl: check the change's phase before any model step, read the
# layers of its tasks.md, and start implementing (or, when a person has fixed
# what an earlier review found, start with a review).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/agentd.sh"

dir=$(trim "${RAYMOND_INPUT:-}")
dir=${dir%/}
dir=${dir#./}
check_change_path "$dir"
[ -d "$dir" ] || die "$dir is not a folder; give the folder of a planned change, like changes/add-login"
remember_change "$dir"

p=$(phase "$dir")
case "$p" in
  challenged | implementing) ;;
  complete)
    printf '<result>%s</result>\n' "$dir is implemented already (phase complete); nothing to do. Next: the archive workflow, with --input $dir"
    exit 0
    ;;
  none) die "$dir has no STATE.yaml: it was never planned; impl needs phase challenged or implementing, so run the plan workflow on it first" ;;
  proposed) die "$dir is in phase proposed: its plan has not passed the challenge; impl needs phase challenged or implementing, so run the plan workflow on it first" ;;
  *) die "$dir is in phase $p; impl needs phase challenged or implementing" ;;
esac
tasks=$dir/tasks.md
[ -s "$tasks" ] || die "$tasks is missing or empty; impl implements the tasks of the plan, so run the plan workflow (or write tasks.md) first"

# The layers, in order: the frontmatter's layers: list when it has one, else
# the "## N. X Layer" headings (Agentd's layer inference), else one layer
# holding every task.
frontmatter=$(awk 'NR == 1 && !/^---[[:space:]]*$/ { exit } NR > 1 && /^---[[:space:]]*$/ { exit } NR > 1 { print }' "$tasks")
layers=$(printf '%s\n' "$frontmatter" | awk '
  /^layers:[[:space:]]*\[/ { v = $0; sub(/^[^[]*\[/, "", v); sub(/\].*$/, "", v); n = split(v, a, ","); for (i = 1; i <= n; i++) print a[i]; exit }
  /^layers:[[:space:]]*$/ { inlist = 1; next }
  inlist && /^[[:space:]]*-/ { v = $0; sub(/^[[:space:]]*-[[:space:]]*/, "", v); print v; next }
  inlist { exit }' | sed -e 's/^[[:space:]"'\'']*//' -e 's/[[:space:]"'\'']*$//' -e '/^$/d')
from="the frontmatter's layers"
if [ -z "$layers" ]; then
  layers=$(tr -d '\r' <"$tasks" | sed -n -E 's/^##[[:space:]]+[0-9]+\.[[:space:]]+(.*[^[:space:]])[[:space:]]*$/\1/p' | sed -E 's/[[:space:]]+[Ll]ayer$//')
  from="the headings of tasks.md"
fi
if [ -z "$layers" ]; then
  layers="every task"
  from="tasks.md, which has no layer headings"
fi
fm_id=$(printf '%s\n' "$frontmatter" | sed -n -E 's/^change_id:[[:space:]]*["'\'']?([^"'\''[:space:]]*).*/\1/p' | head -n 1)
if [ -n "$fm_id" ] && [ "$fm_id" != "$(change_id "$dir")" ]; then
  die "$tasks says change_id: $(plain "$fm_id"), but the change folder is $(change_id "$dir"); correct one of them"
fi
printf '%s\n' "$layers" >"$RAYMOND_TASK_FOLDER/layers"
say "impl $dir: layers from $from: $(printf '%s\n' "$layers" | paste -sd, - | sed 's/,/, /g')"

if [ "$p" = implementing ] && [ -f "$dir/REVIEW.md" ]; then
  # An earlier run stopped after a review; what a person did since is
  # reviewed before anything else.
  say "impl $dir: phase implementing with a review on file, reviewing the work again"
  echo "<goto>SUBMIT</goto>"
  exit 0
fi
if [ "$p" = challenged ]; then
  set_phase "$dir" implementing
  say "impl $dir: phase implementing"
fi
echo "<goto>NEXT_LAYER</goto>"
