package daemon

import (
	"errors"
	"sync"

	"raymond/orchestrator"
	"raymond/state"
)

// asker is the orchestrator.Asker of one run the daemon drives: the asks it
// opens wait in the state file (and the daemon's list) until an answer comes
// through the API. Deadlines are the machine's: it expires an ask at its
// deadline by itself.
//
// It takes an answer to any ask the caller found pending in the state file,
// whether or not this drive has opened it yet: a resumed run opens its asks
// again only once its loop has started, and an answer given in between is
// as good as one given after.
type asker struct {
	answers chan orchestrator.Answer

	mu     sync.Mutex
	given  map[string]bool // asks answered through this drive
	closed bool
}

// Errors of asker.answer.
var (
	errAnswered = errors.New("answered already")
	errDriveEnd = errors.New("the drive has ended")
	errBusy     = errors.New("too many answers wait for the run")
)

// askerBuffer is how many answers may wait for the driver's loop.
const askerBuffer = 64

func newAsker() *asker {
	return &asker{answers: make(chan orchestrator.Answer, askerBuffer), given: make(map[string]bool)}
}

// Open is called on the driver's loop when an ask opens: the state file
// already lists it, so there is nothing more to do.
func (a *asker) Open(agent string, k state.Ask) {}

// Answers delivers the answers given through the API.
func (a *asker) Answers() <-chan orchestrator.Answer { return a.answers }

// answer hands text to the run as the answer to ask id. It fails with
// errAnswered when this drive had an answer to it already, with errDriveEnd
// once the drive has ended, and with errBusy when the run has not taken the
// answers given before.
func (a *asker) answer(id, text string, saved chan<- error) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.closed:
		return errDriveEnd
	case a.given[id]:
		return errAnswered
	}
	select {
	case a.answers <- orchestrator.Answer{AskID: id, Text: text, Saved: saved}:
		a.given[id] = true
		return nil
	default:
		return errBusy
	}
}

// waitSaved waits until the answer given with saved is on disk: saved by
// the drive, or, when the drive ended before it took the answer, recorded
// as the drive ended.
func (d *Daemon) waitSaved(rd *driven, saved <-chan error) error {
	select {
	case err := <-saved:
		return err
	case <-rd.done:
		select {
		case err := <-saved:
			return err
		default:
			return errDriveEnd
		}
	}
}

// close takes no more answers and returns those the drive did not take.
func (a *asker) close() []orchestrator.Answer {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	var left []orchestrator.Answer
	for {
		select {
		case x := <-a.answers:
			left = append(left, x)
		default:
			return left
		}
	}
}
