#!/bin/bash
# make_v1_runs.sh: how the runs in script/resume_v1_signal.txtar and
# script/resume_v1_kill9.txtar were made, once, by hand. It needs raymond and
# the fake claude built from commit fd52cb8 (state version 1), at
# $OLD/raymond and $OLD/fake-claude. For each fixture it drives a run in
# /tmp/raymondv1work until main's JOIN and worker b's first step wait on
# their gates, signals raymond (INT, then opens the gates; or KILL), and
# prints the txtar sections of what is left: the state folder, the transcript
# folder, the fake's session store and call log, and the workflow, with the
# folder written @WORK@ and the fake's name for it @WORK_KEY@ (the script
# command fixpaths undoes both). The comments and commands at the top of each
# .txtar, and its want.calls and script.yaml, are written by hand.
#
#	OLD=/tmp/old ./make_v1_runs.sh sig INT > sig.sections
#	OLD=/tmp/old ./make_v1_runs.sh k9 KILL > k9.sections
set -euo pipefail
ID=$1 SIG=$2 OLD=${OLD:-/tmp/old}
W=/tmp/raymondv1work
rm -rf $W
mkdir -p $W/wf $W/bin $W/.fake-claude
ln -s $OLD/fake-claude $W/bin/claude
cd $W
printf 'Start {{input}}.\n' >wf/START.md
printf 'Forker {{input}}.\n' >wf/FORKER.md
printf 'Worker {{item}}.\n' >wf/WORKER.md
printf 'Worker2 {{input}}.\n' >wf/WORKER2.md
printf 'Join.\n' >wf/JOIN.md
printf 'Join2.\n' >wf/JOIN2.md
printf 'Back with {{input}}.\n' >wf/BACK.md
cat >script.yaml <<'EOS'
replies:
  - match: "^Start hello"
    text: '<call return="BACK" input="the work">FORKER</call>'
    cost: 0.01
  - match: "^Forker the work"
    text: '<fork next="JOIN" item="a">WORKER</fork> <fork next="JOIN" item="b">WORKER</fork>'
    cost: 0.02
  - match: "^Worker a"
    text: '<result>a done</result>'
    cost: 0.04
  - match: "^Worker b"
    wait_for: go-b
    text: '<goto input="from b">WORKER2</goto>'
    cost: 0.08
  - match: "^Join\\."
    wait_for: go-join
    text: '<goto>JOIN2</goto>'
    cost: 0.16
EOS

export PATH=$W/bin:$PATH FAKE_CLAUDE_DIR=$W/.fake-claude FAKE_CLAUDE_SCRIPT=$W/script.yaml NO_COLOR=1
$OLD/raymond run --id "$ID" --input hello wf >out.txt 2>err.txt &
pid=$!
D=.raymond/debug/$ID
waitre() {
	for _ in $(seq 2000); do grep -qs "$2" "$1" && return 0; sleep 0.01; done
	echo "timed out waiting for $2 in $1" >&2
	exit 1
}
waitre $D/main_JOIN_003.jsonl '"type":"system"'
waitre $D/main_worker2_WORKER_001.jsonl '"type":"system"'
waitre $D/main_worker1_WORKER_001.jsonl '"type":"result"'
until [ -e $D/main_worker1_WORKER_001.meta.json ]; do sleep 0.01; done
sleep 0.3 # worker a's end saved
kill -"$SIG" $pid
if [ "$SIG" = INT ]; then
	sleep 0.3
	touch $FAKE_CLAUDE_DIR/go-b $FAKE_CLAUDE_DIR/go-join
fi
wait $pid || true
sleep 0.5 # the killed fakes record their calls
rm -f $FAKE_CLAUDE_DIR/.lock $FAKE_CLAUDE_DIR/replies.json $FAKE_CLAUDE_DIR/go-*

python3 - "$W" <<'EOP'
import os, sys
w = sys.argv[1]
key = ''.join(c if c.isascii() and c.isalnum() else '-' for c in w)
def sub(s): return s.replace(w, '@WORK@').replace(key, '@WORK_KEY@')
files = []
for base in ['.raymond', '.fake-claude', 'wf']:
    for root, dirs, names in os.walk(os.path.join(w, base)):
        dirs.sort()
        files += [os.path.join(root, n) for n in sorted(names)]
for p in files:
    data = open(p).read()
    if data and not data.endswith('\n'):
        data += '\n'
    sys.stdout.write('-- %s --\n%s' % (sub(os.path.relpath(p, w)), sub(data)))
EOP
