# The person's answer arrives as RAYMOND_INPUT, the ask's id as RAYMOND_ASK_ID.
# Only a clear yes deploys; anything else stops here, saying why.
set -eu
answer=$(printf '%s' "${RAYMOND_INPUT:-}" | tr '[:upper:]' '[:lower:]' | tr -d '[:space:].!')
case "$answer" in
  y | yes | approve | approved)
    echo "<goto input=\"approved ($RAYMOND_ASK_ID)\">DEPLOY</goto>"
    ;;
  n | no | decline | declined)
    echo "<result>Not deployed: declined ($RAYMOND_ASK_ID).</result>"
    ;;
  *)
    # The person's words, echoed on stdout, which is read for tags: without
    # their < and >, no text of theirs can make a tag.
    said=${RAYMOND_INPUT:-}
    echo "<result>Not deployed: the answer to $RAYMOND_ASK_ID was neither yes nor no: ${said//[<>]/}</result>"
    ;;
esac
