# Reached when the challenge forgot its verdict line a second time
# (VERDICT_MISSING.md's visit cap): a person has to look. Once they have
# added the line, raymond resume runs this script again, and it goes on.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/agentd.sh"

dir=$(change)
before=$(cat "$RAYMOND_TASK_FOLDER/verdicts")
after=$(verdicts "$dir/proposal.md" | wc -l | tr -d ' ')
if [ "$after" -gt "$before" ]; then
  echo "<goto>VERDICT</goto>"
  exit 0
fi
die "the challenge wrote no verdict line into $dir/proposal.md, even when asked again; add one at the end of its review (Verdict: APPROVED, NEEDS_REVISION or REJECTED) and resume the run"
