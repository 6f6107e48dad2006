// Package state keeps a run's state file: protocol.md §9 and the "Files"
// section of cli.md.
//
// Each run has one JSON file, <project>/.raymond/state/<id>.json, described by
// Run. The orchestrator is its only writer: it rewrites the whole file after
// every transition with Store.Write, which replaces it atomically (temp file in
// the same folder, fsync, rename, fsync of the folder), so a reader sees either
// the previous run or the next one, never a torn file. Before a step starts its
// agent's Pending step is written down in full (session to resume or branch
// from, pre-minted session id, input, fork variables, working directory), so a
// process that dies mid-step can run exactly the same step again on resume:
// steps are at least once.
//
// The file carries a schema Version. A reader refuses files from a newer
// version with a message that says to upgrade, and ignores unknown fields of
// its own version, so fields can be added without bumping it.
//
// A process drives a run only while it holds the run's lock (Store.Lock), an
// flock on <id>.lock that holds the driver's pid. The kernel drops the lock
// when the process dies, so Store.Holder tells an interrupted run (status
// running, nobody holds the lock) from one that is being driven. Lock files are
// never removed: unlinking a flock'ed file lets two processes lock two
// different files of the same name.
//
// Run ids come from NewID (sortable by creation time, unique) or from the user
// (checked with ValidID). FindProject finds the folder that holds .raymond/.
package state
