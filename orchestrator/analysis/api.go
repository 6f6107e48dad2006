package analysis

import (
	"errors"
	"io"

	"raymond/state"
)

// errTODO marks what is not written yet.
var errTODO = errors.New("not implemented yet")

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

// Load analyses the transcript of src as far as it goes. Only a folder
// that cannot be read at all, or holds no transcript, is an error; a torn
// or incomplete transcript gives a Run with Notes.
func Load(src Source) (*Run, error) { return nil, errTODO }

// LoadDetail reads step s of the run in folder dir in full.
func LoadDetail(dir string, s *Step) (*Detail, error) { return nil, errTODO }

// Find returns the step of agent whose Seq is seq, or nil.
func (r *Run) Find(agent string, seq int) *Step { return nil }

// Step returns the step named name, or nil.
func (r *Run) Step(name string) *Step { return nil }

// Agent returns the agent with the given id, or nil.
func (r *Run) Agent(id string) *Agent { return nil }

// TextOptions shape the text report.
type TextOptions struct {
	// Sort orders the per-state table: "cost" (default) or "time".
	Sort string
	// Width is the terminal width; 0 means 80.
	Width int
	// Color allows ANSI colour.
	Color bool
}

// WriteText writes the text report: summary, notes, path, per-state
// table, timeline and critical path, readable in Width columns.
func WriteText(w io.Writer, r *Run, o TextOptions) error { return errTODO }

// WriteJSON writes r as one indented JSON object (the --json schema).
func WriteJSON(w io.Writer, r *Run) error { return errTODO }

// WriteDetail writes one step in full as text (--step).
func WriteDetail(w io.Writer, d *Detail, o TextOptions) error { return errTODO }

// WriteMermaid writes the path actually taken as a Mermaid flowchart, with
// the number of times each edge was taken on it.
func WriteMermaid(w io.Writer, r *Run) error { return errTODO }

// WriteHTML writes the self-contained HTML report: summary, timeline chart,
// cost-per-state bars, path, and every step expandable (details holds
// each step's Detail, by step name; a missing one shows what is known).
func WriteHTML(w io.Writer, r *Run, details map[string]*Detail) error { return errTODO }
