# After the plan was written or revised: check that its three parts are there,
# give tasks.md the change_id frontmatter if the model left it out, mark the
# change proposed, and hand the plan to an independent challenger.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/agentd.sh"

dir=$(change)
id=$(change_id "$dir")
[ -s "$dir/proposal.md" ] || die "$dir/proposal.md is missing or empty; write it (or run plan on a fresh folder) and resume"
compgen -G "$dir/specs/*.md" >/dev/null || die "$dir/specs/ holds no .md spec; write the specs and resume"
[ -s "$dir/tasks.md" ] || die "$dir/tasks.md is missing or empty; write it and resume"

tasks=$dir/tasks.md
if [ "$(head -n 1 "$tasks" | tr -d '\r')" != "---" ]; then
  { printf -- '---\nchange_id: %s\n---\n' "$id"; cat "$tasks"; } >"$tasks.new"
  mv "$tasks.new" "$tasks"
  say "plan $dir: added the change_id frontmatter to tasks.md"
else
  fm_id=$(awk 'NR > 1 && /^---[[:space:]]*$/ { exit } NR > 1 && /^change_id:/ { sub(/^change_id:[[:space:]]*/, ""); gsub(/["\047[:space:]]/, ""); print; exit }' "$tasks")
  if [ -z "$fm_id" ]; then
    awk -v id="$id" 'NR == 1 { print; print "change_id: " id; next } { print }' "$tasks" >"$tasks.new"
    mv "$tasks.new" "$tasks"
    say "plan $dir: added change_id to the frontmatter of tasks.md"
  elif [ "$fm_id" != "$id" ]; then
    die "$tasks says change_id: $(plain "$fm_id"), but the change folder is $id; correct one of them and resume"
  fi
fi

if [ "$(phase "$dir")" = none ]; then
  set_phase "$dir" proposed
  say "plan $dir: phase proposed"
fi
# The challenge appends its review to proposal.md; count the verdicts so that
# VERDICT.sh reads only one written by this challenge.
verdicts "$dir/proposal.md" | wc -l | tr -d ' ' >"$RAYMOND_TASK_FOLDER/verdicts"
printf '<reset input="%s">CHALLENGE</reset>\n' "$dir"
