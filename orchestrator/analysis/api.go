package analysis

import "raymond/state"

// Source is where a run's record is.
type Source struct {
	// Dir is the transcript folder, .raymond/debug/<id>.
	Dir string
	// State is the run's state file, nil when there is none (a copied
	// transcript folder, a run whose state was deleted).
	State *state.Run
	// Running is true when a process holds the run's lock now; PID is it.
	Running bool
	PID     int
}

// TextOptions shape the text report.
type TextOptions struct {
	// Sort orders the per-state table: "cost" (default) or "time".
	Sort string
	// Width is the terminal width; 0 means 80.
	Width int
	// Color allows ANSI colour.
	Color bool
}
