# An item came back from IMPLEMENT.md: its <result> arrives as
# RAYMOND_RESULT, and its first line says DONE or FAILED: reason. This marks
# the item in plan.md, the only writer of that file after SAVE_PLAN.sh:
#
#   DONE                   - [ ] 3. Label ...   ->  - [x] 3. Label ...
#                          and the "- [ ] N. ..." lines of the answer are
#                          appended, up to twice the plan's original_count
#                          items in all; the rest are dropped with a warning
#   FAILED, first try      the reason goes to retry; NEXT.sh tries the item
#                          once more, telling the model why the first failed
#   FAILED, second try     - [ ] 3. Label ...   ->  - [!] 3. Label ... [Failed: reason]
#
# Which item and which try come from the file current, which NEXT.sh wrote.
# plan.md changes in one rename, and only while the item's line still reads
# as NEXT.sh saw it: run again after a crash, this finds the item marked
# already and changes nothing.
set -euo pipefail
dir=$RAYMOND_TASK_FOLDER
answer=$(if [ -n "${RAYMOND_RESULT_FILE:-}" ]; then cat "$RAYMOND_RESULT_FILE"; else printf '%s' "${RAYMOND_RESULT:-}"; fi | tr -d '\r')
pending_re='^- \[ \][[:space:]]*[0-9]+\.[[:space:]]*.+$'
item_re='^- \[[ x!]\][[:space:]]*[0-9]+\.[[:space:]]*.+$'

line=$(sed -n 's/^line=//p' "$dir/current")
attempt=$(sed -n 's/^attempt=//p' "$dir/current")
item=$(sed -n 's/^item=//p' "$dir/current")
rest=${item#- \[ \] }

now=$(sed -n "${line}p" "$dir/plan.md")
if [ "$now" != "$item" ]; then
  # Marked already (this step ran before a crash), or someone edited
  # plan.md above the item while it was worked on: then find its line again.
  case $now in
    "- [x] $rest" | "- [!] $rest [Failed: "*) line= ;;
    *) line=$(grep -nxF -- "$item" "$dir/plan.md" | head -n 1 | cut -d: -f1 || true) ;;
  esac
  if [ -z "$line" ]; then
    echo "<print>Item ${rest//[<>]/} is recorded already</print>"
    echo '<goto>NEXT.sh</goto>'
    exit 0
  fi
fi

# clip prints $1 cut to $2 characters (bytes where the locale is not UTF-8,
# as in LC_ALL=C), without the last character cut in half: a byte cut can
# end inside one, which would leave invalid UTF-8 in plan.md and prompts.
clip() {
  printf '%s' "${1:0:$2}" | LC_ALL=C sed -E $'s/([\xc0-\xdf]|[\xe0-\xef][\x80-\xbf]?|[\xf0-\xf7][\x80-\xbf]{0,2})$//'
}

# The verdict: the first line that is not blank.
first=$(printf '%s\n' "$answer" | awk 'NF { sub(/^[ \t]+/, ""); sub(/[ \t]+$/, ""); print; exit }')
upper=$(printf '%s' "$first" | tr '[:lower:]' '[:upper:]')
case "$upper" in
  DONE*) verdict=done ;;
  FAILED*)
    verdict=failed
    # The separator as whole characters: in a bracket, a locale that is
    # not UTF-8 reads — as three bytes and would strip the first bytes of
    # a reason that starts with “, … or →.
    reason=$(printf '%s' "${first:6}" | sed -E 's/^([[:space:]]|:|—|-)+//')
    [ -n "$reason" ] || reason='no reason given'
    ;;
  *)
    verdict=failed
    reason="the answer did not start with DONE or FAILED: $(clip "$first" 120)"
    ;;
esac

# replace_line writes plan.md with its line $line replaced by $1 and the
# lines of the file $2 (if any) appended, in one rename.
replace_line() {
  NEW="$1" awk -v n="$line" 'NR == n { print ENVIRON["NEW"]; next } { print }' "$dir/plan.md" > "$dir/plan.md.tmp"
  if [ -n "${2:-}" ]; then cat "$2" >> "$dir/plan.md.tmp"; fi
  mv "$dir/plan.md.tmp" "$dir/plan.md"
}

# warn adds a line to warnings.md once, however often this step runs.
warn() {
  touch "$dir/warnings.md"
  grep -qxF -- "$1" "$dir/warnings.md" || printf '%s\n' "$1" >> "$dir/warnings.md"
}

if [ "$verdict" = failed ]; then
  reason=$(printf '%s' "$reason" | tr '\n\t' '  ')
  reason=$(clip "$reason" 200)
  if [ "$attempt" = 1 ]; then
    printf '%s\n%s\n%s\n' "$line" "$item" "$reason" > "$dir/retry.tmp"
    mv "$dir/retry.tmp" "$dir/retry"
    echo "<print>Item failed, one more try: ${reason//[<>]/}</print>"
  else
    replace_line "- [!] $rest [Failed: $reason]"
    rm -f "$dir/retry"
    echo "<print>Item failed twice, marked [!]: ${reason//[<>]/}</print>"
  fi
  echo '<goto>NEXT.sh</goto>'
  exit 0
fi

# Done. New items the answer proposes, without those the plan has already.
printf '%s\n' "$answer" | sed -E 's/^[[:space:]]+//' | grep -E "$pending_re" > "$dir/proposed.tmp" || true
: > "$dir/append.tmp"
existing=$(grep -Ec "$item_re" "$dir/plan.md" || true)
original=$(sed -n 's/^<!-- original_count: \([0-9][0-9]*\) -->$/\1/p' "$dir/plan.md" | head -n 1)
if [ -z "$original" ]; then
  # No marker (a plan written by hand, or edited): no cap beyond twice
  # what the plan holds now, rather than refusing every addition.
  original=$existing
  warn "- plan.md has no <!-- original_count: N --> marker; new items are capped at twice the items it held when they were proposed."
fi
cap=$((original * 2))
count=$existing
added=0
dropped=0
while IFS= read -r new; do
  body=${new#- \[ \]}
  body=$(printf '%s' "$body" | sed -E 's/^[[:space:]]+//')
  if B="$body" awk '{ r = $0; sub(/^- \[[ x!]\][ \t]*/, "", r); sub(/ \[Failed: .*\]$/, "", r); if (r == ENVIRON["B"]) found = 1 } END { exit !found }' "$dir/plan.md" "$dir/append.tmp"; then
    continue
  fi
  if [ "$count" -ge "$cap" ]; then
    dropped=$((dropped + 1))
    warn "- dropped a new item proposed by item \"$rest\" (the plan is capped at $cap items, twice its original $original): $body"
    continue
  fi
  printf -- '- [ ] %s\n' "$body" >> "$dir/append.tmp"
  count=$((count + 1))
  added=$((added + 1))
done < "$dir/proposed.tmp"
replace_line "- [x] $rest" "$dir/append.tmp"
rm -f "$dir/retry" "$dir/proposed.tmp" "$dir/append.tmp"
msg="Item done"
case $added in
  0) ;;
  1) msg="$msg; 1 new item added to the plan" ;;
  *) msg="$msg; $added new items added to the plan" ;;
esac
[ "$dropped" -eq 0 ] || msg="$msg; warning: $dropped proposed items dropped, the plan is capped at $cap items (see warnings.md)"
echo "<print>$msg</print>"
echo '<goto>NEXT.sh</goto>'
