# Route on the verdict of REVIEW.md and set the phase from it: APPROVED ->
# complete; NEEDS_FIX -> implementing, and a fix round (at most three: FIX.md's
# visit cap); MAJOR_ISSUES -> implementing, and a stop for a person.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/agentd.sh"

dir=$(change)
verdict=$(verdicts "$dir/REVIEW.md" | tail -n 1)
case "$verdict" in
  "")
    say "impl $dir: the review left no verdict line in REVIEW.md; asking for it"
    printf '<goto input="%s">VERDICT_MISSING</goto>\n' "$dir"
    ;;
  APPROVED)
    set_phase "$dir" complete
    say "impl $dir: APPROVED, phase complete"
    printf '<result>%s</result>\n' "$dir: the review APPROVED the implementation; phase complete. Next: the archive workflow, with --input $dir"
    ;;
  NEEDS_FIX)
    set_phase "$dir" implementing
    say "impl $dir: NEEDS_FIX, fixing"
    printf '<reset input="%s">FIX</reset>\n' "$dir"
    ;;
  MAJOR_ISSUES)
    set_phase "$dir" implementing
    say "impl $dir: MAJOR_ISSUES, stopping for a person"
    printf '<result>%s</result>\n' "$dir: the review found MAJOR_ISSUES; phase stays implementing. Fix them by hand (see $dir/REVIEW.md), then run impl again: it starts with a new review."
    ;;
  *)
    die "the verdict in $dir/REVIEW.md is \"$(plain "$verdict")\", which is none of APPROVED, NEEDS_FIX, MAJOR_ISSUES; correct the line and resume the run"
    ;;
esac
