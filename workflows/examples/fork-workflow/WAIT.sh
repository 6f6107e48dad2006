# The pause between two counts of JOIN.sh. bash sleeps for free; a model
# told to sleep would be a paid step, and Claude Code's Bash refuses a
# standalone `sleep` anyway. The number of reviewers, RAYMOND_INPUT, goes
# back to JOIN.sh as it came (digits only: it is written into a tag).
sleep 60
echo "<goto input=\"${RAYMOND_INPUT//[!0-9]/}\">JOIN</goto>"
