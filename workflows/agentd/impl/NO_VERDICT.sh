# Reached when the reviewer left no verdict line a second time
# (VERDICT_MISSING.md's visit cap): a person has to look.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/agentd.sh"

dir=$(change)
die "the review left no verdict line in $dir/REVIEW.md, even when asked again; add one (Verdict: APPROVED, NEEDS_FIX or MAJOR_ISSUES) and resume the run"
