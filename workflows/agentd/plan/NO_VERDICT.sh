# Reached when the challenge forgot its verdict line a second time
# (VERDICT_MISSING.md's visit cap): a person has to look.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/agentd.sh"

dir=$(change)
die "the challenge wrote no verdict line into $dir/proposal.md, even when asked again; add one at the end of its review (Verdict: APPROVED, NEEDS_REVISION or REJECTED) and resume the run"
