# The join, with no model: wait for the three reviewers' notes. Each
# reviewer writes reports/RUN/ITEM.md in one Write as its last act, so a
# file that exists is complete. bash sleeps for free, so this looks every
# few seconds at no cost, where a model's step would be paid for every look
# (and Claude Code's Bash refuses a standalone `sleep` anyway). After
# `limit` seconds it stops waiting; REPORT.md then names what never came.
set -u
dir="reports/$RAYMOND_RUN_ID"
every=3     # seconds between two looks
limit=1800  # seconds to wait in all: 30 minutes
waited=0
seen=-1
while :; do
	missing=""
	for item in tests errors docs; do
		[ -f "$dir/$item.md" ] || missing="$missing $item"
	done
	missing=${missing# }
	if [ -z "$missing" ]; then
		echo '<goto input="all three reviews are in">REPORT.md</goto>'
		exit 0
	fi
	have=$((3 - $(echo "$missing" | wc -w)))
	if [ "$have" -ne "$seen" ]; then
		echo "<print>$have of 3 reviews in; waiting for: $missing</print>" >&2
		seen=$have
	fi
	if [ "$waited" -ge "$limit" ]; then
		echo "<goto input=\"after $((limit / 60)) minutes, these reviews never came: $missing\">REPORT.md</goto>"
		exit 0
	fi
	sleep "$every"
	waited=$((waited + every))
	# Some output now and then, so that --timeout does not take the wait for a hang.
	if [ $((waited % 60)) -lt "$every" ]; then
		echo "waited ${waited}s for: $missing" >&2
	fi
done
