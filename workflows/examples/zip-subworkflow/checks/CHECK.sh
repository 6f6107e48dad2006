# The mechanical checks, after the review passed: whitespace errors and
# leftover conflict markers in the uncommitted changes below the working
# directory. The review's verdict arrives as RAYMOND_INPUT and is returned
# when these checks find nothing. In a zip this script runs from a private
# copy; the working directory is the caller's. stdout is read for tags, so
# the text echoed from elsewhere (the verdict, the lines git reports) loses
# its < and > first.
set -eu
verdict=${RAYMOND_INPUT:-pass}
verdict=${verdict//[<>]/}
if git rev-parse --git-dir >/dev/null 2>&1; then
  if problems=$(git diff --check -- . 2>&1); [ -z "$problems" ]; then
    echo "<result>$verdict</result>"
  else
    echo "<result>fail: git diff --check found: $(printf '%s' "$problems" | head -n 3 | tr -d '<>' | tr '\n' ' ')</result>"
  fi
else
  echo "<print>not a git repository: no mechanical checks</print>"
  echo "<result>$verdict</result>"
fi
