# Reached when the reviewer left no verdict line a second time
# (VERDICT_MISSING.md's visit cap): a person has to look. Once they have
# added the line, raymond resume runs this script again, and it goes on.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/agentd.sh"

dir=$(change)
if [ -n "$(verdicts "$dir/REVIEW.md")" ]; then
  echo "<goto>REVIEWED</goto>"
  exit 0
fi
die "the review left no verdict line in $dir/REVIEW.md, even when asked again; add one (Verdict: APPROVED, NEEDS_FIX or MAJOR_ISSUES) and resume the run"
