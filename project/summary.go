package project

import (
	"cmp"
	"fmt"
	"path/filepath"
	"time"

	"raymond/machine"
	"raymond/state"
)

// Exit statuses of a command. cli.md defines 0 to 6; 7 is raymond's own.
// A Summary carries the one its run ends with.
const (
	ExitOK        = 0 // completed
	ExitFailed    = 1 // failed (an agent failed), or raymond itself failed
	ExitUsage     = 2 // bad usage
	ExitPaused    = 3 // paused, resumable: a signal, a usage limit with --no-wait
	ExitAsking    = 4 // waiting for answers: agents ask and nothing else can progress
	ExitBudget    = 5 // the budget is reached: resumable with a higher --budget
	ExitNotDriven = 6 // nothing driven: another process drives the run, or it had ended
	ExitNoClaude  = 7 // claude cannot run at all; the run is paused until that is fixed
)

// ExitFor returns the exit status a run in status s ends the process with.
func ExitFor(s state.Status) int {
	switch s {
	case state.StatusCompleted:
		return ExitOK
	case state.StatusFailed:
		return ExitFailed
	case state.StatusBudgetExceeded:
		return ExitBudget
	case state.StatusAsking:
		return ExitAsking
	}
	// Paused, waiting, or stopped before it got anywhere: the run can be
	// resumed.
	return ExitPaused
}

// Listing is one run as raymond list shows it; its JSON is an element of
// list --json.
type Listing struct {
	RunID string `json:"run_id"`
	// Workflow is what the list shows: the workflow folder's or file's
	// name, or the URL of a workflow from the web (whose ScopeDir is its
	// copy in the registry, a name the user never gave).
	Workflow string `json:"workflow"`
	ScopeDir string `json:"scope_dir"`
	// ScopeURL is the pinned URL the run's workflow came from, or "".
	ScopeURL     string       `json:"scope_url,omitempty"`
	Status       state.Status `json:"status"`
	Interrupted  bool         `json:"interrupted"`
	AgentsActive int          `json:"agents_active"`
	// AgentsRunning are the agents whose step runs or is about to;
	// AgentsAsking those that wait for an answer.
	AgentsRunning int       `json:"agents_running"`
	AgentsAsking  int       `json:"agents_asking"`
	AgentsTotal   int       `json:"agents_total"`
	TotalCostUSD  float64   `json:"total_cost_usd"`
	BudgetUSD     float64   `json:"budget_usd"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
	// PendingAsks is the number of asks that wait for an answer; absent
	// from the JSON when none do.
	PendingAsks int  `json:"pending_asks,omitempty"`
	DrivenBy    *int `json:"driven_by"` // pid, nil when no process drives it
	// StateFile is the run's state file.
	StateFile string `json:"state_file"`
	// Transcript is the run's transcript folder, "" for a run started
	// with --no-debug.
	Transcript string `json:"transcript"`
	// Draft is, for a run started with --workspace worktree, what became
	// of its draft: draft, published, discarded (publishing, discarding
	// while one was interrupted); absent for a run in the shared mode.
	Draft string `json:"draft,omitempty"`
}

// Describe returns the Listing of run r, asking store whether a process
// drives it. A run that says it is running or waiting while no process
// drives it is interrupted.
func Describe(store *state.Store, r *state.Run) (Listing, error) {
	l := Listing{
		RunID:        r.WorkflowID,
		Workflow:     WorkflowName(r),
		ScopeDir:     r.ScopeDir,
		ScopeURL:     r.ScopeURL,
		Status:       r.Status,
		AgentsTotal:  len(r.Agents),
		TotalCostUSD: r.TotalCostUSD,
		BudgetUSD:    r.BudgetUSD,
		CreatedAt:    r.CreatedAt,
		UpdatedAt:    r.UpdatedAt,
		StateFile:    store.Path(r.WorkflowID),
	}
	if r.Options.Debug {
		// The store is <project>/.raymond/state.
		l.Transcript = filepath.Join(DebugDir(filepath.Dir(filepath.Dir(store.Dir))), r.WorkflowID)
	}
	if r.ScopeURL != "" {
		l.Workflow = r.ScopeURL
	}
	for _, a := range r.Agents {
		if !a.Status.Ended() {
			l.AgentsActive++
		}
		switch a.Status {
		case state.AgentReady, state.AgentRunning:
			l.AgentsRunning++
		case state.AgentAsking:
			l.AgentsAsking++
		}
	}
	l.PendingAsks = len(machine.PendingAsks(r))
	pid, held, err := store.Holder(r.WorkflowID)
	if err != nil {
		return Listing{}, err
	}
	if held {
		l.DrivenBy = &pid
	}
	if r.Workspace.Worktree() {
		l.Draft = cmp.Or(r.Workspace.Status, state.DraftOpen)
	}
	// A run whose draft was published or discarded cannot go on.
	l.Interrupted = !held && (r.Status == state.StatusRunning || r.Status == state.StatusWaiting) && !r.Workspace.Closed()
	return l, nil
}

// ShownStatus is the status a person is shown: the run's status, or
// "interrupted", or "asking" for a run still driven (in prompt mode, or by
// the daemon) whose agents only wait for answers.
func (l Listing) ShownStatus() string {
	switch {
	case l.Interrupted:
		return "interrupted"
	case l.Status == state.StatusRunning && l.AgentsAsking > 0 && l.AgentsRunning == 0:
		return string(state.StatusAsking)
	}
	return string(l.Status)
}

// Detail is the JSON of raymond status --json and of the API's run: the
// run's Listing fields, the state file as it is, and who drives the run.
type Detail struct {
	// RunID and the fields below it, to PendingAsks, are the Listing's:
	// a run's detail carries every field of its row in a list, so that one
	// shape (run_id, not the state file's workflow_id) names a run in every
	// answer of the command line and the API.
	RunID         string `json:"run_id"`
	Workflow      string `json:"workflow"`
	Interrupted   bool   `json:"interrupted"`
	AgentsActive  int    `json:"agents_active"`
	AgentsRunning int    `json:"agents_running"`
	AgentsAsking  int    `json:"agents_asking"`
	AgentsTotal   int    `json:"agents_total"`
	PendingAsks   int    `json:"pending_asks,omitempty"`
	*state.Run
	// Asks are the run's pending asks, oldest first, as the object of exit
	// 4 lists them; absent from the JSON when there are none.
	Asks     []PendingAsk `json:"asks,omitempty"`
	DrivenBy *int         `json:"driven_by"`
	// StateFile and Transcript are as in Listing.
	StateFile  string `json:"state_file"`
	Transcript string `json:"transcript"`
}

// NewDetail returns the Detail of run r, whose Listing (Describe) is row.
func NewDetail(r *state.Run, row Listing) Detail {
	return Detail{RunID: row.RunID, Workflow: row.Workflow, Interrupted: row.Interrupted,
		AgentsActive: row.AgentsActive, AgentsRunning: row.AgentsRunning, AgentsAsking: row.AgentsAsking,
		AgentsTotal: row.AgentsTotal, PendingAsks: row.PendingAsks,
		Run: r, DrivenBy: row.DrivenBy, Asks: NewAsking(r).Asks, StateFile: row.StateFile, Transcript: row.Transcript}
}

// Summary is the JSON object printed at the end of a run (run --json).
type Summary struct {
	RunID        string         `json:"run_id"`
	Status       state.Status   `json:"status"`
	Result       *string        `json:"result"` // main's result; nil until main has one
	TotalCostUSD float64        `json:"total_cost_usd"`
	BudgetUSD    float64        `json:"budget_usd"`
	Agents       []AgentSummary `json:"agents"`
	Project      string         `json:"project"`
	Transcript   *string        `json:"transcript"` // its folder, nil without one
	ExitCode     int            `json:"exit_code"`
	// RewoundFrom is set for a run raymond rewind made.
	RewoundFrom *RewoundFrom `json:"rewound_from,omitempty"`
}

// RewoundFrom names the run and step a rewound run was made from, and what
// the original had spent before that step (not counted in this run's).
type RewoundFrom struct {
	Run          string  `json:"run"`
	Step         string  `json:"step"`
	Agent        string  `json:"agent"`
	PriorCostUSD float64 `json:"prior_cost_usd"`
}

// AgentSummary is one agent in a Summary.
type AgentSummary struct {
	ID     string            `json:"id"`
	Status state.AgentStatus `json:"status"`
	State  string            `json:"state"`
	Result *string           `json:"result"`
	Error  *string           `json:"error"`
}

// NewSummary describes r, a run of the project in dir.
func NewSummary(r *state.Run, dir string) Summary {
	s := Summary{
		RunID:        r.WorkflowID,
		Status:       r.Status,
		TotalCostUSD: r.TotalCostUSD,
		BudgetUSD:    r.BudgetUSD,
		Agents:       make([]AgentSummary, 0, len(r.Agents)),
		Project:      dir,
		ExitCode:     ExitFor(r.Status),
	}
	s.Result = r.Result
	if w := r.Rewound; w != nil {
		s.RewoundFrom = &RewoundFrom{Run: w.Run, Step: w.Step, Agent: w.Agent, PriorCostUSD: w.PriorCostUSD}
	}
	if r.Options.Debug {
		t := filepath.Join(DebugDir(dir), r.WorkflowID)
		s.Transcript = &t
	}
	for _, a := range r.Agents {
		as := AgentSummary{ID: a.ID, Status: a.Status, State: a.CurrentState, Result: a.Result}
		if a.LastError != "" {
			as.Error = &a.LastError
		}
		s.Agents = append(s.Agents, as)
	}
	return s
}

// NextStep says, for a run that did not complete, what happened and how to
// go on, as one line for a person; "" for a completed run. A run driven
// with --replies is resumed with them again, so its command says so.
func NextStep(r *state.Run) string {
	id := r.WorkflowID
	resume := func(flags string) string {
		return "raymond resume " + ShellQuote(id) + flags + RepliesFlag(r)
	}
	switch r.Status {
	case state.StatusCompleted:
		return ""
	case state.StatusFailed:
		// The driver's summary already named each failed agent.
		return fmt.Sprintf("'%s' retries the failed agents", resume(""))
	case state.StatusBudgetExceeded:
		return fmt.Sprintf("run %s reached its budget ($%.4f of $%.4f); resume it with: %s",
			id, r.TotalCostUSD, r.BudgetUSD, resume(" --budget USD"))
	case state.StatusWaiting:
		return fmt.Sprintf("run %s is waiting; resume it with: %s", id, resume(""))
	case state.StatusAsking:
		n := len(machine.PendingAsks(r))
		asks := "1 ask waits"
		if n != 1 {
			asks = fmt.Sprintf("%d asks wait", n)
		}
		return fmt.Sprintf("run %s: %s for an answer; answer with: raymond answer %s ASK_ID TEXT, then: %s ('raymond status %s' lists them)",
			id, asks, ShellQuote(id), resume(""), ShellQuote(id))
	}
	return fmt.Sprintf("run %s paused; resume it with: %s", id, resume(""))
}

// RepliesFlag is what a command that resumes run r adds for the replies
// file that answers it: the file it is stored with (which resume uses by
// itself, shown so that a person sees which), " --replies FILE" for a
// scripted run made before the file was stored, else "".
func RepliesFlag(r *state.Run) string {
	switch {
	case r.Options.Replies != "":
		return " --replies " + ShellQuote(r.Options.Replies)
	case r.Options.Scripted:
		return " --replies FILE"
	}
	return ""
}

// WorkflowName is the short name of a run's workflow: its folder's or file's
// name; for a workflow kept in the states/ folder of its own (protocol
// §17), the name of the folder that holds states/.
func WorkflowName(r *state.Run) string {
	name := filepath.Base(r.ScopeDir)
	if name == "states" {
		name = filepath.Base(filepath.Dir(r.ScopeDir))
	}
	return name
}
