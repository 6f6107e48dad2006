# Entry of plan: decide from the change's phase alone what to do, before any
# model step. The input is the change folder, optionally followed by what the
# change should do (written to REQUEST.md for a new change).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/agentd.sh"

input=$(trim "${RAYMOND_INPUT:-}")
dir=${input%%[[:space:]]*}
request=${input#"$dir"}
request=${request#"${request%%[![:space:]]*}"}
dir=${dir%/}
dir=${dir#./}
# A folder whose path holds a space would be cut at it, and the rest taken
# for a request: refuse it (a folder that exists, or a new change inside
# one), rather than plan a new change named after the first word.
if [ ! -e "$dir" ]; then
  for ((i = ${#dir} + 1; i <= ${#input}; i++)); do
    if [[ $i -eq ${#input} || ${input:i:1} == [[:space:]/] ]] && [ -d "${input:0:i}" ]; then
      die "\"$(plain "${input:0:i}")\" has a space in its path, and this workflow takes change folders of letters, digits and . _ / - only: rename the folder, or plan the change in another one"
    fi
  done
fi
check_change_path "$dir"
remember_change "$dir"
[ ! -e "$dir" ] || [ -d "$dir" ] || die "$dir is a file, not a change folder"

p=$(phase "$dir")
case "$p" in
  none)
    if [ -n "$request" ]; then
      mkdir -p "$dir"
      printf '%s\n' "$request" >"$dir/REQUEST.md"
    fi
    [ -s "$dir/REQUEST.md" ] || die "$dir is a new change and says nothing of what it should do: write that in $dir/REQUEST.md, or give it after the folder: --input \"$dir what the change should do\""
    say "plan $dir: new change $(change_id "$dir"), writing the proposal"
    printf '<reset input="%s">PROPOSE</reset>\n' "$dir"
    ;;
  proposed)
    [ -z "$request" ] || die "$dir is already planned (phase proposed): give only the folder to challenge its plan again, or edit $dir/REQUEST.md and the plan yourself"
    say "plan $dir: phase proposed, challenging the plan again"
    echo "<goto>CHECK</goto>"
    ;;
  challenged)
    printf '<result>%s</result>\n' "$dir is planned already (phase challenged); nothing to do. Next: the impl workflow, with --input $dir"
    ;;
  *)
    hint="plan works on a new change (no STATE.yaml) or one in phase proposed"
    case "$p" in
      rejected) hint="$hint; the challenge rejected this one: read the review at the end of $dir/proposal.md, rework the plan and set phase: proposed in $dir/STATE.yaml to have it challenged again" ;;
      *) hint="$hint; this one is past planning" ;;
    esac
    die "$dir is in phase $p: $hint"
    ;;
esac
