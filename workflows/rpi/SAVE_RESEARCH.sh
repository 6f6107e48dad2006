# Research came back: its <result> arrives as RAYMOND_RESULT and becomes
# research.md in the task folder, which the plan and every item read. The
# model never writes the file itself. Run again after a crash, it keeps the
# file it wrote the first time.
set -euo pipefail
dir=$RAYMOND_TASK_FOLDER
findings=$(if [ -n "${RAYMOND_RESULT_FILE:-}" ]; then cat "$RAYMOND_RESULT_FILE"; else printf '%s' "${RAYMOND_RESULT:-}"; fi)
if [ ! -f "$dir/research.md" ]; then
  if [ -z "${findings//[[:space:]]/}" ]; then
    findings='(The research phase returned nothing.)'
  fi
  printf '%s\n' "$findings" > "$dir/research.md.tmp"
  mv "$dir/research.md.tmp" "$dir/research.md"
fi
echo "<print>Research saved: $(wc -l < "$dir/research.md" | tr -d ' ') lines in research.md</print>"
echo '<goto>NEXT.sh</goto>'
