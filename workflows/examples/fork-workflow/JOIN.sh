# The join: count the reviewers' files in the shared task folder. All in:
# on to the report. Some missing: wait (WAIT.sh, a minute) and count again,
# at most 20 times. The number of reviewers arrives as RAYMOND_INPUT.
set -eu
want=${RAYMOND_INPUT:-3}
case "$want" in '' | *[!0-9]*) want=3 ;; esac
dir=$RAYMOND_TASK_FOLDER
mkdir -p "$dir/reviews"
checks=$(( $(cat "$dir/join-checks" 2>/dev/null || echo 0) + 1 ))
echo "$checks" > "$dir/join-checks"
have=$(find "$dir/reviews" -name '*.txt' | wc -l)
if [ "$have" -ge "$want" ]; then
  echo "<goto input=\"all $have reviews are in\">REPORT</goto>"
elif [ "$checks" -ge 20 ]; then
  echo "<goto input=\"only $have of $want reviews came in\">REPORT</goto>"
else
  echo "<print>$have of $want reviews in</print>"
  echo "<goto input=\"$want\">WAIT</goto>"
fi
