# Hand the work to a fresh reviewer. A REVIEW.md from an earlier round is
# filed under reviews/ first, so the REVIEW.md the reviewer leaves is new and
# its verdict is this round's.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/agentd.sh"

dir=$(change)
if [ -f "$dir/REVIEW.md" ]; then
  mkdir -p "$dir/reviews"
  n=1
  while [ -e "$dir/reviews/REVIEW-$n.md" ]; do n=$((n + 1)); done
  mv "$dir/REVIEW.md" "$dir/reviews/REVIEW-$n.md"
fi
say "impl $dir: reviewing the implementation"
printf '<reset input="%s">CODE_REVIEW</reset>\n' "$dir"
