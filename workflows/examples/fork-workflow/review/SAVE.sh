# Save this reviewer's findings where the coordinator looks for them: the
# task folder, which the reviewers share with the agent that forked them
# (task="inherit"), one file per reviewer.
set -eu
dir=$RAYMOND_TASK_FOLDER/reviews
mkdir -p "$dir"
printf '%s\n' "${RAYMOND_INPUT:-no findings}" > "$dir/$RAYMOND_AGENT_ID.tmp"
mv "$dir/$RAYMOND_AGENT_ID.tmp" "$dir/$RAYMOND_AGENT_ID.txt"
echo "<result>saved $dir/$RAYMOND_AGENT_ID.txt</result>"
