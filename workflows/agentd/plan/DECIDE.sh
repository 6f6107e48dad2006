# The person's answer to ASK.sh: implement anyway (phase challenged, and this
# run goes on as the impl workflow), or stop with the change in phase proposed.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/agentd.sh"

dir=$(change)
answer=$(printf '%s' "${RAYMOND_INPUT:-}" | tr '[:upper:]' '[:lower:]' | tr -d '[:space:].!')
case "$answer" in
  implement | implementanyway | yes | y)
    set_phase "$dir" challenged
    say "plan $dir: implementing anyway (${RAYMOND_ASK_ID:-}), phase challenged"
    printf '<reset-workflow input="%s">../impl/</reset-workflow>\n' "$dir"
    ;;
  stop | no | n)
    printf '<result>%s</result>\n' "$dir: stopped with the plan still NEEDS_REVISION after 2 revisions (${RAYMOND_ASK_ID:-}); phase proposed. Rework the plan from the last review in $dir/proposal.md and run plan again to have it challenged."
    ;;
  *)
    said=$(plain "${RAYMOND_INPUT:-}")
    printf '<result>%s</result>\n' "$dir: stopped, since the answer to ${RAYMOND_ASK_ID:-the question} was neither implement nor stop: $said. Phase proposed; run plan again to have the plan challenged, or set phase: challenged in $dir/STATE.yaml and run impl."
    ;;
esac
