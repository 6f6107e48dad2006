// Package state keeps a run's state file: protocol.md §9 and the "Files"
// section of cli.md.
//
// Each run has a state file, <project>/.raymond/state/<id>.json, described by
// Run, and while a process drives it a journal beside it, <id>.journal. The
// driver is their only writer.
//
// The state file is a snapshot: the whole run, replaced atomically (temp file
// in the same folder, fsync, rename, fsync of the folder) by Store.Create,
// Store.Write and the Journal, so a reader sees either the previous snapshot
// or the next one, never a torn file. Rewriting it at every transition would
// write gigabytes for a wide fan-out, so a driver persists through a Journal
// (Store.Journal): each Save appends one JSON line with what changed (the
// header fields that changed, the agents it is told of, in full, and the
// session costs that changed) and fsyncs the journal before it returns. When
// the journal outgrows the snapshot (and 64 KiB), Save writes a new snapshot
// and empties the journal; Journal.Close writes a last one and removes the
// journal, so an ended run is one plain file. Bytes written stay within about
// twice the lines plus the final size (BenchmarkJournalFanout1000).
//
// Generations tie the two files together. Every snapshot stores a Gen one
// higher than the run it was given, and every journal line the Gen of the
// snapshot it was written against. A reader (Store.Read, Store.List) takes
// the snapshot, then applies in order the journal lines of the snapshot's
// generation: lines of an older one were written before the snapshot, which
// holds them already (a compaction, or a Store.Write, stopped before the
// journal was emptied). A last line that is torn or does not parse is
// ignored: its Save never returned. Any other bad line is an error naming the
// file and line. When the snapshot was replaced while the reader read the
// journal, or the journal holds lines of a newer generation, the reader reads
// both again (three tries in all), so a concurrent raymond status sees a state
// the driver saved.
//
// Before a step starts its agent's Pending step is saved in full (session to
// resume or branch from, pre-minted session id, input, fork variables, working
// directory), so a process that dies mid-step can run exactly the same step
// again on resume: steps are at least once.
//
// The file carries a schema Version. A reader refuses files from a newer
// version with a message that says to upgrade, and ignores unknown fields of
// its own version, so fields can be added without bumping it. Files of an
// older version, and the journal lines written against them, are migrated
// on read, one version at a time (migrate.go); writes are always of Version.
//
// A process drives a run only while it holds the run's lock (Store.Lock), an
// flock on <id>.lock (and on Linux an open file description lock beside it)
// that holds the driver's pid while it drives. The kernel drops the locks
// when the process dies, so Store.Holder tells an interrupted run (status
// running, nobody holds the lock) from one that is being driven. Holder never
// takes the lock, not even for an instant (it tests the open file description
// lock, or where there is none, goes by the pid and whether that process
// lives), so readers never make a driver fail to start. Lock files are never
// removed: unlinking a flock'ed file lets two processes lock two different
// files of the same name.
//
// The state folder is 0700 and its files 0600, whatever the umask; a driver
// closes a folder an older raymond left open to others (Store.Lock).
//
// Run ids come from NewID (sortable by creation time, unique) or from the user
// (checked with ValidID). Package project finds the folder that holds
// .raymond/.
package state
