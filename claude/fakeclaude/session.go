package fakeclaude

import (
	"strings"
	"syscall"

	"raymond/claude/wire"
)

// begin settles the session this call runs in and takes its reply, both under the
// lock: a resumed session must exist in this cwd (else errNoSession), a branch copies
// its parent, a new session gets the --session-id or a fresh UUID (an id in use is
// refused). The prompt is written into the session at once, so that a session whose
// call crashes or hangs can still be resumed. It returns the index of the reply, or -1
// when none is left; then no session is written.
func (t *turn) begin(sc *script) (int, error) {
	o := t.opts
	index := -1
	err := withLock(t.dir, syscall.LOCK_EX, func() error {
		var s *Session
		switch {
		case o.resumeGiven:
			parent, err := loadSession(t.dir, t.inv.cwd, o.resume)
			if err != nil {
				return err
			}
			s = parent
			if o.forkSession {
				id, err := t.newSessionID()
				if err != nil {
					return err
				}
				branch := *parent
				branch.ID, branch.ForkedFrom = id, parent.ID
				branch.History = append([]Message(nil), parent.History...)
				s = &branch
			}
		default:
			id, err := t.newSessionID()
			if err != nil {
				return err
			}
			s = &Session{ID: id, Cwd: t.inv.cwd, History: []Message{}}
		}
		t.sessionID = s.ID

		c, err := loadConsumption(t.dir)
		if err != nil {
			return err
		}
		if index = sc.pick(c, t.prompt); index < 0 {
			return nil
		}
		if err := saveConsumption(t.dir, c); err != nil {
			return err
		}
		s.History = append(s.History, Message{Role: "user", Text: t.prompt})
		return saveSession(t.dir, s)
	})
	t.reply = &Reply{}
	if index >= 0 {
		t.reply = &sc.Replies[index]
		if n := t.reply.Pad - len(t.reply.Text); n > 0 {
			t.reply.Text += strings.Repeat(" ", n)
		}
	}
	return index, err
}

// newSessionID is --session-id if given and free in this cwd, else a fresh UUID. The
// caller holds the lock.
func (t *turn) newSessionID() (string, error) {
	id := t.opts.sessionID
	if id == "" {
		return wire.NewUUID(), nil
	}
	if sessionExists(t.dir, t.inv.cwd, id) {
		return "", cliError("Error: Session ID " + id + " is already in use.")
	}
	return id, nil
}

// record adds this call's reply and usage to the session and returns the session's
// cumulative usage afterwards.
func (t *turn) record(text string, used tokens) (tokens, error) {
	var total tokens
	err := withLock(t.dir, syscall.LOCK_EX, func() error {
		s, err := loadSession(t.dir, t.inv.cwd, t.sessionID)
		if err != nil {
			return err
		}
		s.History = append(s.History, Message{Role: "assistant", Text: text})
		s.CostUSD += used.cost
		s.InputTokens += used.in
		s.OutputTokens += used.out
		total = tokens{in: s.InputTokens, out: s.OutputTokens, cost: s.CostUSD}
		return saveSession(t.dir, s)
	})
	return total, err
}
