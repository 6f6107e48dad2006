package analysis

import (
	"time"

	"raymond/state"
)

// Source is where a run's record is.
type Source struct {
	// Dir is the transcript folder, .raymond/debug/<id>.
	Dir string
	// State is the run's state file, nil when there is none (a copied
	// transcript folder, a run whose state was deleted).
	State *state.Run
	// StateProblem says why the state file could not be used although it
	// exists (it is empty or does not decode); the analysis then goes on
	// from the transcript alone and says so in a note.
	StateProblem string
	// Running is true when a process holds the run's lock now; PID is it.
	Running bool
	PID     int
	// Now is the time a run still going is analysed at: its wall time,
	// its open wait and its running steps count until then. Zero means
	// time.Now().
	Now time.Time
}

// TextOptions shape the text report.
type TextOptions struct {
	// Sort orders the per-state table: "cost" (default) or "time".
	Sort string
	// Width is the terminal width in columns; 0 means 80, and anything
	// below MinWidth is laid out in MinWidth.
	Width int
	// Color allows ANSI colour.
	Color bool
}
