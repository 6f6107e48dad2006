# The dispatcher: decides what runs next from the files in the task folder
# alone, so a run resumed after a crash picks up where its files say it was.
#
#   no research.md                 -> RESEARCH.md, a fresh session
#   no plan.md                     -> PLAN.md, a fresh session
#   a pending "- [ ] N. ..." item  -> IMPLEMENT.md, a fresh session per try
#   otherwise                      -> SUMMARY.md, a fresh session
#
# Each phase is entered with <function return="...">, so its <result> comes
# back to the script that records it (SAVE_RESEARCH.sh, SAVE_PLAN.sh,
# RECORD.sh), which writes the file and comes back here. The tags are
# written whole with printf, only their input filled in, so that raymond
# lint and raymond diagram can follow them.
set -euo pipefail
dir=$RAYMOND_TASK_FOLDER
item_re='^- \[[ x!]\][[:space:]]*[0-9]+\.[[:space:]]*.+$'

# attr writes a value for a tag attribute: & " < > as entities. With sed,
# not ${v//"/&quot;}: bash 5.2 reads & in such a replacement as the text
# it replaces.
attr() {
  printf '%s' "$1" | sed -e 's/&/\&amp;/g' -e 's/"/\&quot;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'
}

# atomic writes stdin to the file $1 in one rename.
atomic() {
  cat > "$1.tmp"
  mv "$1.tmp" "$1"
}

task=$(cat "$dir/input.txt")

if [ ! -f "$dir/research.md" ]; then
  echo '<print>Research</print>'
  printf '<function return="SAVE_RESEARCH.sh" input="%s">RESEARCH.md</function>\n' "$(attr "$task")"
  exit 0
fi

if [ ! -f "$dir/plan.md" ]; then
  echo '<print>Plan</print>'
  printf '<function return="SAVE_PLAN.sh" input="%s">PLAN.md</function>\n' "$(attr "$task")"
  exit 0
fi

# The first pending item: its line in plan.md, its place among all items, the
# number of items, and the line itself. The expression reaches awk through
# its environment: awk -v would take its backslashes for escapes.
read -r line pos total < <(RE=$item_re awk '
  $0 ~ ENVIRON["RE"] { n++; if (!line && substr($0, 4, 1) == " ") { line = NR; pos = n } }
  END { print line + 0, pos + 0, n + 0 }' "$dir/plan.md")

if [ "$line" -gt 0 ]; then
  item=$(sed -n "${line}p" "$dir/plan.md")
  # The label as the progress shows it: no checkbox, no number, no description.
  label=$(printf '%s\n' "$item" | sed -E 's/^- \[.\][[:space:]]*[0-9]+\.[[:space:]]*//; s/[[:space:]]+(—|--|-)[[:space:]].*$//')
  label=${label//[<>]/}
  attempt=1
  reason=
  # A first try that failed left the reason in retry, keyed by the item's
  # line and text; a retry file about another item is stale and ignored.
  if [ -f "$dir/retry" ] && [ "$(sed -n 1p "$dir/retry")" = "$line" ] &&
    [ "$(sed -n 2p "$dir/retry")" = "$item" ]; then
    attempt=2
    reason=$(sed -n '3,$p' "$dir/retry")
  fi
  printf 'line=%s\nattempt=%s\nitem=%s\n' "$line" "$attempt" "$item" | atomic "$dir/current"
  brief="Item $pos of $total of the plan in $dir/plan.md:
$item"
  if [ "$attempt" = 2 ]; then
    echo "<print>Implementing item $pos of $total (second try): $label</print>"
    brief="$brief

This is the second and last try at this item. The first try failed: $reason"
  else
    echo "<print>Implementing item $pos of $total: $label</print>"
  fi
  printf '<function return="RECORD.sh" input="%s">IMPLEMENT.md</function>\n' "$(attr "$brief")"
  exit 0
fi

# Nothing pending: the summary. Counts for its prompt, and the files changed
# since the run started, with git where there is one and without it too.
read -r done failed < <(RE=$item_re awk '
  $0 ~ ENVIRON["RE"] { s = substr($0, 4, 1); if (s == "x") d++; else if (s == "!") f++ }
  END { print d + 0, f + 0 }' "$dir/plan.md")
if [ "$total" -eq 0 ]; then
  outcome="the plan held no checklist items, so nothing was implemented"
else
  noun=items
  [ "$total" -ne 1 ] || noun=item
  outcome="$total $noun: $done done, $failed failed"
fi
{
  echo "# Files created or changed since the run started"
  echo
  if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
    echo '## git status --porcelain'
    echo
    git status --porcelain 2> /dev/null | grep -v ' \.raymond/' | head -n 200 || true
    echo
  fi
  echo '## Files modified after the run started (not under .git, .raymond or node_modules)'
  echo
  find . \( -name .git -o -name .raymond -o -name node_modules \) -prune -o -type f -newer "$dir/started" -print 2> /dev/null |
    sed 's|^\./||' | LC_ALL=C sort | head -n 200 || true
} | atomic "$dir/changes.md"
: > "$dir/summarizing"
echo '<print>Summary</print>'
printf '<reset input="%s">SUMMARY.md</reset>\n' "$outcome"
