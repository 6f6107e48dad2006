# The join, with no model: wait for the workers' summaries. START's goto
# names the folders it forked, one word each, as RAYMOND_INPUT; each worker
# writes summaries/RUN/FOLDER.md in one go as its last act, so a file that
# exists is complete. bash sleeps for free, so this looks every few seconds
# at no cost, where a model's step would be paid for every look (and Claude
# Code's Bash refuses a standalone `sleep` anyway). After `limit` seconds
# it stops waiting, and JOIN names the summaries that never came.
set -u
dir="summaries/$RAYMOND_RUN_ID"
every=3     # seconds between two looks
limit=1800  # seconds to wait in all: 30 minutes
folders=""
for f in ${RAYMOND_INPUT:-}; do
	# Folder names only: they are written into a tag below.
	[[ $f =~ ^[A-Za-z0-9._-]+$ ]] && folders="$folders $f"
done
if [ -z "$folders" ]; then
	echo '<goto input="no folder was named, so there was nothing to wait for">JOIN.md</goto>'
	exit 0
fi
waited=0
while :; do
	missing=""
	for f in $folders; do
		[ -f "$dir/$f.md" ] || missing="$missing $f"
	done
	missing=${missing# }
	if [ -z "$missing" ]; then
		echo "<goto input=\"all summaries are in:$folders\">JOIN.md</goto>"
		exit 0
	fi
	if [ "$waited" -ge "$limit" ]; then
		echo "<goto input=\"after $((limit / 60)) minutes, these summaries never came: $missing\">JOIN.md</goto>"
		exit 0
	fi
	sleep "$every"
	waited=$((waited + every))
	# Some output now and then, so that --timeout does not take the wait for a hang.
	if [ $((waited % 60)) -lt "$every" ]; then
		echo "waited ${waited}s for: $missing" >&2
	fi
done
