# Route on the verdict the challenge wrote at the end of proposal.md, and set
# the phase from it: APPROVED -> challenged, NEEDS_REVISION -> proposed (and a
# revision, at most two: REVISE.md's visit cap), REJECTED -> rejected.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/agentd.sh"

dir=$(change)
before=$(cat "$RAYMOND_TASK_FOLDER/verdicts")
after=$(verdicts "$dir/proposal.md" | wc -l | tr -d ' ')
if [ "$after" -le "$before" ]; then
  say "plan $dir: the challenge wrote no verdict line into proposal.md; asking for it"
  printf '<goto input="%s">VERDICT_MISSING</goto>\n' "$dir"
  exit 0
fi
verdict=$(verdicts "$dir/proposal.md" | tail -n 1)
case "$verdict" in
  APPROVED)
    set_phase "$dir" challenged
    say "plan $dir: APPROVED, phase challenged"
    printf '<result>%s</result>\n' "$dir: the challenge APPROVED the plan; phase challenged. Next: the impl workflow, with --input $dir"
    ;;
  NEEDS_REVISION)
    set_phase "$dir" proposed
    say "plan $dir: NEEDS_REVISION, phase proposed, revising the plan"
    printf '<reset input="%s">REVISE</reset>\n' "$dir"
    ;;
  REJECTED)
    set_phase "$dir" rejected
    say "plan $dir: REJECTED, phase rejected"
    printf '<result>%s</result>\n' "$dir: the challenge REJECTED the plan; phase rejected. Read the review at the end of $dir/proposal.md; to try again, rework the plan, set phase: proposed in $dir/STATE.yaml and run plan again."
    ;;
  *)
    die "the last verdict in $dir/proposal.md is \"$(plain "$verdict")\", which is none of APPROVED, NEEDS_REVISION, REJECTED; correct the line and resume the run"
    ;;
esac
