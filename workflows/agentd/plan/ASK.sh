# Reached instead of a third revision (REVISE.md's visit cap): the plan still
# needs revision after two rounds, so a person decides.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/agentd.sh"

dir=$(change)
say "plan $dir: still NEEDS_REVISION after 2 revisions, asking a person"
printf '<ask next="DECIDE">%s</ask>\n' "The challenge of $dir still says NEEDS_REVISION after 2 revisions; its last review is at the end of $dir/proposal.md. Implement anyway (the impl workflow starts now), or stop (the change stays in phase proposed)? Answer implement or stop."
