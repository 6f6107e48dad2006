package fakeclaude

import (
	"errors"
	"strings"
	"syscall"

	"raymond/claude/wire"
)

// begin settles the session this call runs in and takes its reply, under the lock of
// FAKE_CLAUDE_DIR: a resumed session must exist, in this cwd's folder of the store
// or in another (else errNoSession), and
// gives the call the model it answered with last, a branch copies its parent, a new
// session gets the --session-id or a fresh UUID (an id in use is refused). The prompt is written into the session at once, so that a
// session whose call crashes or hangs can still be resumed. It returns the index of
// the reply, or -1 when none is left; then no session is written.
func (t *turn) begin(sc *script) (int, error) {
	o := t.opts
	cwd := t.inv.cwd
	index := -1
	err := withLock(t.dir, syscall.LOCK_EX, func() error {
		var (
			parent     []entry // the session resumed or branched from
			copied     []entry // a branch's copy of its parent
			parentUUID string  // the line the prompt follows
			forkedFrom string
			create     = true
		)
		switch {
		case o.resumeGiven:
			var err error
			if parent, err = readSession(t.config, cwd, o.resume); err != nil {
				return err
			}
			// The running cost goes on from the whole session's, also for
			// a branch cut at an earlier message: the real CLI 2.1.330
			// does not cut it (its total_cost_usd counts the turns after
			// the cut too).
			t.costBase = totals(parent).cost
			if o.resumeAt != "" {
				if parent, err = cutAt(parent, o.resumeAt); err != nil {
					return err
				}
			}
			if last := lastMessage(parent); last != nil {
				parentUUID = last.UUID
			}
			t.sessionModel = summarize("", "", parent).Model
			if !o.forkSession {
				t.sessionID, create = o.resume, false
				break
			}
			if t.sessionID, err = t.newSessionID(); err != nil {
				return err
			}
			forkedFrom = o.resume
			// The messages are copied, not the parent's cost-state lines
			// (as the real CLI does): the branch's running cost starts
			// from the parent's all the same.
			for _, e := range parent {
				if e.message() {
					e.SessionID, e.ForkedFrom = t.sessionID, ""
					copied = append(copied, e)
				}
			}
		default:
			var err error
			if t.sessionID, err = t.newSessionID(); err != nil {
				return err
			}
		}

		c, err := loadConsumption(t.dir)
		if err != nil {
			return err
		}
		model, fallbacks := t.requestedModel(), t.fallbackModels()
		index = sc.pick(c, t.prompt, model)
		for index >= 0 && sc.Replies[index].Error == "overloaded" && len(fallbacks) > 0 {
			// The CLI goes on with its next --fallback-model after three
			// 529s in a row; that model's reply answers the call.
			if fallbacks[0] != model {
				t.fellBack = append(t.fellBack, [2]string{model, fallbacks[0]})
				model = fallbacks[0]
				index = sc.pick(c, t.prompt, model)
			}
			fallbacks = fallbacks[1:]
		}
		if index < 0 {
			return nil
		}
		var lines []entry
		if last := lastMessage(parent); last != nil && last.Type == "user" {
			// The last turn was interrupted: the CLI answers it for the
			// model before the new prompt.
			answer := newEntry(t.sessionID, cwd, parentUUID, Message{Role: "assistant", Text: noResponse}, t.version)
			lines, parentUUID = append(lines, answer), answer.UUID
		}
		prompt := newEntry(t.sessionID, cwd, parentUUID, Message{Role: "user", Text: t.prompt}, t.version)
		prompt.ForkedFrom = forkedFrom
		t.lastUUID = prompt.UUID
		lines = append(lines, prompt)
		if create {
			err = createSession(t.config, cwd, t.sessionID, append(copied, lines...))
		} else {
			_, err = appendSession(t.config, cwd, t.sessionID, lines...)
		}
		if errors.Is(err, errSessionInUse) {
			return inUse(t.sessionID)
		}
		if err != nil {
			return err
		}
		return saveConsumption(t.dir, c)
	})
	t.reply = &Reply{}
	if index >= 0 && err == nil {
		t.reply = &sc.Replies[index]
		if n := t.reply.Pad - len(t.reply.Text); n > 0 {
			t.reply.Text += strings.Repeat(" ", n)
		}
	}
	if err != nil {
		index = -1
	}
	return index, err
}

// errNoMessage reports that --resume-session-at names no message of the session.
var errNoMessage = errors.New("no such message")

// cutAt is the session entries up to and including the message whose uuid is
// at, as --resume-session-at loads them: the later turns are not seen.
func cutAt(entries []entry, at string) ([]entry, error) {
	for i := range entries {
		if entries[i].message() && entries[i].UUID == at {
			return entries[:i+1], nil
		}
	}
	return nil, errNoMessage
}

// noResponse is the answer the real CLI gives, on the next --resume, to a turn that
// was interrupted before its answer.
const noResponse = "No response requested."

// lastMessage is the last message line of a session (cost-state lines are not), or
// nil.
func lastMessage(entries []entry) *entry {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].message() {
			return &entries[i]
		}
	}
	return nil
}

// saveCost appends the cost-state line the real CLI writes as it exits (at the end
// of its turn, or on SIGTERM or SIGINT; a SIGKILL leaves none): the session
// lineage's cost before this call plus what this call's finished API requests cost.
func (t *turn) saveCost() error {
	return appendCostState(t.config, t.inv.cwd, t.sessionID, t.costBase+t.paid)
}

// newSessionID is --session-id if given and free in this cwd, else a fresh UUID.
func (t *turn) newSessionID() (string, error) {
	id := t.opts.sessionID
	if id == "" {
		return wire.NewUUID(), nil
	}
	if sessionExists(t.config, t.inv.cwd, id) {
		return "", inUse(id)
	}
	return id, nil
}

// inUse is the real CLI's refusal of a --session-id that names an existing session.
func inUse(id string) error {
	return cliError("Error: Session ID " + id + " is already in use.")
}

// record adds this call's reply and usage to the session and returns the session's
// cumulative usage afterwards.
func (t *turn) record(text string, used tokens) (tokens, error) {
	e := newEntry(t.sessionID, t.inv.cwd, t.lastUUID, Message{Role: "assistant", Text: text}, t.version)
	if t.saidUUID != "" {
		// The answer's line in the session has the uuid of its line in the
		// stream, as the real CLI's does: --resume-session-at takes it.
		e.UUID = t.saidUUID
	}
	e.Message.Model = t.model
	e.CostUSD = used.cost
	e.Message.Usage = &entryUsage{InputTokens: used.in, OutputTokens: used.out}
	all, err := appendSession(t.config, t.inv.cwd, t.sessionID, e)
	if err != nil {
		return tokens{}, err
	}
	return totals(all), nil
}
