# The plan came back: its <result> arrives as RAYMOND_RESULT. Only its
# checklist lines are kept, in plan.md, under an <!-- original_count: N -->
# marker that caps how many items implementing may add (twice N in all). The
# model's whole answer is kept beside it as plan-answer.md.
#
#   - [ ] 3. Label — description      kept as written (numbers are labels:
#                                       duplicates and gaps are accepted)
#   - [x] 3. ... or - [!] 3. ...      kept, with its box emptied: nothing is
#                                       done before implementing starts
#   - [ ] Label — description         numbered: one more than the last number
#
# A plan with no such line is written with no items; NEXT.sh then goes
# straight to the summary, which says so. Run again after a crash, it keeps
# the plan.md it wrote the first time.
set -euo pipefail
dir=$RAYMOND_TASK_FOLDER
answer=$(if [ -n "${RAYMOND_RESULT_FILE:-}" ]; then cat "$RAYMOND_RESULT_FILE"; else printf '%s' "${RAYMOND_RESULT:-}"; fi; printf x)
answer=${answer%x} # keep its trailing newlines
if [ ! -f "$dir/plan.md" ]; then
  printf '%s\n' "$answer" > "$dir/plan-answer.md.tmp"
  mv "$dir/plan-answer.md.tmp" "$dir/plan-answer.md"
  items=$(printf '%s\n' "$answer" | tr -d '\r' | awk '
    {
      sub(/^[ \t]+/, "")
      if ($0 !~ /^[-*] \[[ xX!]\]/) next
      rest = substr($0, 6)
      sub(/^[ \t]+/, "", rest)
      if (rest == "") next
      if (rest ~ /^[0-9]+\.[ \t]*[^ \t]/) {
        num = rest; sub(/\..*$/, "", num)
        if (num + 0 > last) last = num + 0
        print "- [ ] " rest
      } else {
        last++
        print "- [ ] " last ". " rest
      }
    }')
  if [ -z "$items" ]; then
    count=0
  else
    count=$(printf '%s\n' "$items" | wc -l | tr -d ' ')
  fi
  {
    echo '# Plan'
    echo
    echo "<!-- original_count: $count -->"
    echo
    echo '## Items'
    echo
    [ -z "$items" ] || printf '%s\n' "$items"
  } > "$dir/plan.md.tmp"
  mv "$dir/plan.md.tmp" "$dir/plan.md"
fi
count=$(grep -Ec '^- \[[ x!]\][[:space:]]*[0-9]+\.[[:space:]]*.+$' "$dir/plan.md" || true)
if [ "$count" -eq 0 ]; then
  echo '<print>Plan saved: no checklist items found in the answer</print>'
else
  echo "<print>Plan saved: $count items in plan.md</print>"
fi
echo '<goto>NEXT.sh</goto>'
