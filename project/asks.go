package project

import (
	"fmt"
	"strings"
	"time"

	"raymond/machine"
	"raymond/state"
)

// Asking is the object raymond prints on stdout when a run ends a drive
// waiting for answers (exit 4; cli.md "Waiting for answers"). asking,
// pending_count and resume keep the original Raymond's shape, so that its
// callers still find .run_id and .asking.prompt.
type Asking struct {
	Status   state.Status   `json:"status"`
	RunID    string         `json:"run_id"`
	Workflow string         `json:"workflow"`
	Asks     []PendingAsk   `json:"asks"`
	Failed   []FailedAgent  `json:"failed"`
	Asking   *AskingSummary `json:"asking"`
	// PendingCount is the number of pending asks besides Asking.
	PendingCount int `json:"pending_count"`
	// Resume is the command that answers the oldest ask and drives the run.
	Resume string `json:"resume"`
}

// PendingAsk is one pending ask of an Asking object. Deadline and
// TimeoutNext are nil for an ask without a timeout.
type PendingAsk struct {
	AskID       string  `json:"ask_id"`
	AgentID     string  `json:"agent_id"`
	State       string  `json:"state"`
	Prompt      string  `json:"prompt"`
	AskedAt     string  `json:"asked_at"`
	Deadline    *string `json:"deadline"`
	TimeoutNext *string `json:"timeout_next"`
	// Answer is the command that records an answer to this ask.
	Answer string `json:"answer"`
}

// FailedAgent is an agent that failed while others asked.
type FailedAgent struct {
	AgentID string `json:"agent_id"`
	State   string `json:"state"`
	Error   string `json:"error"`
}

// AskingSummary is the oldest pending ask, as the original Raymond named it.
type AskingSummary struct {
	AskID   string `json:"ask_id"`
	AgentID string `json:"agent_id"`
	Prompt  string `json:"prompt"`
}

// NewAsking describes the pending asks of run r, oldest first.
func NewAsking(r *state.Run) Asking {
	id := r.WorkflowID
	out := Asking{
		Status:   r.Status,
		RunID:    id,
		Workflow: WorkflowName(r),
		Asks:     []PendingAsk{},
		Failed:   []FailedAgent{},
		Resume:   fmt.Sprintf("raymond resume %s --input 'TEXT'%s", ShellQuote(id), RepliesFlag(r)),
	}
	for _, k := range machine.PendingAsks(r) {
		p := PendingAsk{
			AskID:   k.ID,
			AgentID: askAgent(r, k.ID),
			State:   k.State,
			Prompt:  k.Question,
			AskedAt: Timestamp(k.AskedAt),
			Answer:  fmt.Sprintf("raymond answer %s %s 'TEXT'", ShellQuote(id), ShellQuote(k.ID)),
		}
		if k.Deadline != nil {
			p.Deadline = ref(Timestamp(*k.Deadline))
		}
		if k.TimeoutNext != "" {
			p.TimeoutNext = ref(k.TimeoutNext)
		}
		out.Asks = append(out.Asks, p)
	}
	if len(out.Asks) > 0 {
		first := out.Asks[0]
		out.Asking = &AskingSummary{AskID: first.AskID, AgentID: first.AgentID, Prompt: first.Prompt}
		out.PendingCount = len(out.Asks) - 1
	}
	for _, a := range r.Agents {
		if a.Status == state.AgentFailed {
			out.Failed = append(out.Failed, FailedAgent{AgentID: a.ID, State: a.CurrentState, Error: a.LastError})
		}
	}
	return out
}

// askAgent returns the agent whose ask is id.
func askAgent(r *state.Run, id string) string {
	for _, a := range r.Agents {
		if a.Ask != nil && a.Ask.ID == id {
			return a.ID
		}
	}
	return ""
}

// Timestamp writes t as the JSON objects and messages of asks show times:
// RFC 3339 in UTC, to the second.
func Timestamp(t time.Time) string {
	return t.UTC().Format(time.RFC3339)
}

// ShellQuote returns s as one word of a POSIX shell command line: as it is
// when it holds only characters no shell treats specially, else in single
// quotes (a single quote in s written '\”).
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// FindAsk returns the agent of run r whose ask, pending or not, is id; nil
// when no agent's last ask is id.
func FindAsk(r *state.Run, id string) *state.Agent {
	for i := range r.Agents {
		if a := &r.Agents[i]; a.Ask != nil && a.Ask.ID == id {
			return a
		}
	}
	return nil
}

// AnswerError is an answer that cannot be recorded: no such ask, an ask
// already answered or expired, a deadline passed. The command line maps it
// to a usage error.
type AnswerError struct {
	Msg string
}

func (e *AnswerError) Error() string { return e.Msg }

// RecordAnswer records text as the answer to ask id of run r at now
// (raymond answer, raymond resume --input), with id "" the oldest pending
// ask. It refuses, as an *AnswerError, an unknown ask, one already
// answered, and one past its deadline. It returns the ask answered.
func RecordAnswer(r *state.Run, id, text string, now time.Time) (*state.Ask, error) {
	if id == "" {
		pending := machine.PendingAsks(r)
		if len(pending) == 0 {
			return nil, &AnswerError{Msg: fmt.Sprintf("run %s has no pending ask to answer", r.WorkflowID)}
		}
		id = pending[0].ID
	}
	a := FindAsk(r, id)
	switch {
	case a == nil:
		return nil, &AnswerError{Msg: fmt.Sprintf("run %s has no ask %s%s", r.WorkflowID, id, pendingList(r))}
	case a.Ask.Answer != nil:
		return nil, &AnswerError{Msg: fmt.Sprintf("ask %s was already answered at %s%s", id, Timestamp(*a.Ask.AnsweredAt), pendingList(r))}
	case a.Ask.Expired:
		return nil, &AnswerError{Msg: fmt.Sprintf("ask %s expired: %s", id, afterExpiry(a.Ask))}
	case a.Status != state.AgentAsking:
		return nil, &AnswerError{Msg: fmt.Sprintf("ask %s is no longer pending (agent %s is %s)%s", id, a.ID, a.Status, pendingList(r))}
	case a.Ask.Deadline != nil && !now.Before(*a.Ask.Deadline):
		return nil, &AnswerError{Msg: fmt.Sprintf("ask %s expired at %s; %s", id, Timestamp(*a.Ask.Deadline), afterExpiry(a.Ask))}
	}
	a.Ask.Answer, a.Ask.AnsweredAt = ref(text), ref(now)
	return a.Ask, nil
}

// afterExpiry says what becomes of the agent of an expired ask.
// AfterExpiry says what becomes of an ask's agent now that its deadline
// has passed: the next drive moves it on or fails it.
func AfterExpiry(k *state.Ask) string { return afterExpiry(k) }

func afterExpiry(k *state.Ask) string {
	if k.TimeoutNext != "" {
		return fmt.Sprintf("its agent goes on at %s when the run is resumed", k.TimeoutNext)
	}
	return "its agent fails when the run is resumed"
}

// pendingList names the pending asks of r, for an error message.
func pendingList(r *state.Run) string {
	pending := machine.PendingAsks(r)
	if len(pending) == 0 {
		return "; it has no pending ask"
	}
	ids := make([]string, len(pending))
	for i, k := range pending {
		ids[i] = k.ID
	}
	return "; its pending asks are " + strings.Join(ids, ", ")
}

func ref[T any](v T) *T { return &v }
