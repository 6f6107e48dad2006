# Helpers shared by the script states of the agentd workflows (plan, impl,
# archive). Each script sources this file with
#
#   . "$(dirname "${BASH_SOURCE[0]}")/../lib/agentd.sh"
#
# so the three workflows must stay beside this lib/ folder. Only bash,
# coreutils, sed, awk and grep are used, in ways GNU and BSD (macOS) agree on.
#
# A script states its transition on stdout, which raymond reads for tags, so
# nothing from a file or an input is echoed there unchecked: change paths are
# checked against a strict pattern first, and free text goes through attr or
# plain before it reaches a tag.

# The phases of a change, in the order a change goes through them.
AGENTD_PHASES="proposed challenged rejected implementing complete archived"

# The UTF-8 byte order mark some Windows editors put at the start of a file.
BOM=$(printf '\357\273\277')

# die prints a one-line message for the person on stderr and stops the
# script with status 1, which fails the agent with that message.
die() {
  printf 'agentd: %s\n' "$*" >&2
  exit 1
}

# say shows a line of progress on the terminal (a <print>, not a tag).
say() {
  printf '<print>%s</print>\n' "$(plain "$*")"
}

# plain drops < and > from a text, so it can never make a tag.
plain() {
  local v=${1//</}
  printf '%s' "${v//>/}"
}

# attr escapes a value for a tag attribute: & " < > as entities. With sed,
# since bash 5.2 reads & in the replacement of ${v//x/y} as the text matched.
attr() {
  printf '%s' "$1" | sed -e 's/&/\&amp;/g' -e 's/"/\&quot;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'
}

# trim prints $1 without the white space around it: an input read from a
# file or a pipe (--input @FILE, --input -) ends in a line end.
trim() {
  local v=$1
  v=${v#"${v%%[![:space:]]*}"}
  printf '%s' "${v%"${v##*[![:space:]]}"}"
}

# check_change_path fails unless $1 is a path raymond's tags and the model's
# prompts can carry as it is: letters, digits and . _ / - only.
check_change_path() {
  local p=$1
  [ -n "$p" ] || die "no change folder given; run with --input CHANGE_FOLDER (for example --input changes/add-login)"
  if [[ ! $p =~ ^[A-Za-z0-9._/][A-Za-z0-9._/-]*$ ]]; then
    die "\"$(plain "$p")\" is not a change folder this workflow accepts: use letters, digits and . _ / - only"
  fi
  case "/$p/" in
    */./* | //) die "\"$p\" is not a change folder: name the folder itself, like changes/add-login" ;;
  esac
}

# remember_change records the change folder in the agent's task folder, where
# the later script states read it back (a fallback transition of a visit cap
# carries no input).
remember_change() {
  printf '%s\n' "$1" >"$RAYMOND_TASK_FOLDER/change"
}

# change prints the change folder this run works on.
change() {
  local f=$RAYMOND_TASK_FOLDER/change
  [ -s "$f" ] || die "the task folder $RAYMOND_TASK_FOLDER has no change recorded; start the workflow again with --input CHANGE_FOLDER"
  head -n 1 "$f"
}

# change_id prints the id of the change in folder $1: the folder's name.
change_id() {
  basename "$1"
}

# yaml_get prints the value of the top-level key $2 of the YAML file $1, without
# quotes and trailing comment; nothing when the key is absent. A file saved on
# Windows reads the same: CRLF line ends and a leading byte order mark are not
# part of any key or value.
yaml_get() {
  awk -v key="$2" -v q="'" -v bom="$BOM" '
    { sub(/\r$/, "") }
    NR == 1 && index($0, bom) == 1 { $0 = substr($0, length(bom) + 1) }
    $0 ~ "^" key "[ \t]*:" {
      v = $0
      sub("^" key "[ \t]*:", "", v)
      sub(/[ \t]+#.*$/, "", v)
      gsub(/^[ \t]+|[ \t]+$/, "", v)
      if (v ~ /^".*"$/ || (substr(v, 1, 1) == q && substr(v, length(v), 1) == q && length(v) > 1)) v = substr(v, 2, length(v) - 2)
      print v
      exit
    }' "$1"
}

# yaml_set sets the top-level key $2 of the YAML file $1 to $3 in place: the
# key's line is replaced, or added at the end, and every other line is kept,
# as are the file's line ends (CRLF when its first line has one) and byte order
# mark. The new content is written beside the file and renamed over it, so a
# kill never leaves half a file; the copy keeps the file's mode.
yaml_set() {
  local file=$1 tmp
  tmp=$(mktemp "$file.XXXXXX")
  cp -p "$file" "$tmp"
  awk -v key="$2" -v val="$3" -v bom="$BOM" '
    NR == 1 {
      if (index($0, bom) == 1) { mark = bom; $0 = substr($0, length(bom) + 1) }
      if ($0 ~ /\r$/) eol = "\r"
    }
    { line = $0; sub(/\r$/, "", line) }
    !done && line ~ "^" key "[ \t]*:" { print mark key ": " val eol; mark = ""; done = 1; next }
    { print mark $0; mark = "" }
    END { if (!done) print key ": " val eol }' "$file" >"$tmp"
  mv "$tmp" "$file"
}

# phase prints the phase in the change folder $1's STATE.yaml, "none" when the
# folder has no STATE.yaml, and fails on a phase this workflow does not know.
phase() {
  local state=$1/STATE.yaml p
  if [ ! -f "$state" ]; then
    echo none
    return
  fi
  p=$(yaml_get "$state" phase)
  [ -n "$p" ] || die "$state has no phase: line; add one (phase: proposed) or remove the file to plan the change anew"
  case " $AGENTD_PHASES " in
    *" $p "*) echo "$p" ;;
    *) die "$state has phase \"$(plain "$p")\", which is not one of: $AGENTD_PHASES" ;;
  esac
}

# set_phase writes phase $2 into the change folder $1's STATE.yaml, with the
# time of the change, creating the file (with change_id) when it is missing.
set_phase() {
  local state=$1/STATE.yaml
  if [ ! -f "$state" ]; then
    printf 'change_id: %s\n' "$(change_id "$1")" >"$state"
  fi
  yaml_set "$state" phase "$2"
  yaml_set "$state" updated "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
}

# verdicts prints, one per line, the verdicts written in file $1 on lines
# like "Verdict: APPROVED" (markdown emphasis, a list dash or a heading mark
# around them are allowed; case, - or space in place of _, and a full stop or
# exclamation mark at the end do not matter).
verdicts() {
  [ -f "$1" ] || return 0
  tr -d '\r' <"$1" | sed -e 's/[*`]//g' -e 's/^[[:space:]#>-]*//' |
    awk 'tolower($0) ~ /^verdict[[:space:]]*:/ {
      v = $0
      sub(/^[^:]*:[[:space:]]*/, "", v)
      sub(/[[:space:].!]*$/, "", v)
      v = toupper(v)
      gsub(/[ -]+/, "_", v)
      print v
    }'
}
