// Package transcript writes the transcript of a run: the record of which path
// the run took, what each step cost and how long it took, and what exactly
// the model saw and said (protocol.md §10).
//
// Each run writes into its own folder, .raymond/debug/<run-id>/, unless it
// was started with --no-debug:
//
//	events.jsonl                    every event of the run, one JSON object a line
//	transitions.log                 one human-readable entry per transition
//	<agent>_<stem>_<NNN>.prompt.md  the exact prompt a step sent
//	<agent>_<stem>_<NNN>.jsonl      every stream-json line of the step, as received
//	<agent>_<stem>_<NNN>.meta.json  argv, cwd, sessions, times, exit status,
//	                                outcome, cost and tokens of the step
//	<agent>_<stem>_<NNN>.stdout.txt what a script step wrote on stdout, as it
//	<agent>_<stem>_<NNN>.stderr.txt arrived, and on stderr (none for a stream
//	                                that wrote nothing)
//
// <stem> is the state file's name without its extension and <NNN> counts an
// agent's steps from 001, reminders and retries included: main_START_001,
// main_REVIEW_002, main_worker1_ANALYZE_001. An agent id or stem too long for
// a file name is shortened (step.Name): the full ids are in the events and
// the meta files.
//
// events.jsonl holds [Event] records whose JSON fields are a stable schema;
// [ReadEvents] reads them back. A transitions.log entry is a header line,
// indented details and a blank line:
//
//	2026-01-15 14:30:22 [main] START.md -> NEXT.md (goto)
//	  session_id: 7c0e… (resumed)
//	  cost: $0.0500
//	  total_cost: $0.0500
//
// A resumed run appends to the folder it wrote before. events.jsonl and
// transitions.log get one write per record and no buffering, so a run killed
// with kill -9 leaves them complete up to its last record; a record the kill
// cut in half is dropped (events.jsonl) or closed off (transitions.log) when
// the run resumes.
//
// Writing a transcript never fails a run: the first write error is handed to
// the warn func given to [Open], later ones are dropped, and the writer keeps
// trying. A nil [*Writer] writes nothing.
package transcript
