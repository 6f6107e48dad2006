# Reached instead of a fourth fix round (FIX.md's visit cap): the review still
# says NEEDS_FIX, so a person takes over.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/agentd.sh"

dir=$(change)
say "impl $dir: still NEEDS_FIX after 3 fix rounds, stopping for a person"
printf '<result>%s</result>\n' "$dir: the review still says NEEDS_FIX after 3 automatic fix rounds; phase stays implementing. Fix what $dir/REVIEW.md lists by hand, then run impl again: it starts with a new review."
