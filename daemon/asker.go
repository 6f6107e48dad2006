package daemon

import (
	"sync"

	"raymond/orchestrator"
	"raymond/state"
)

// asker is the orchestrator.Asker of one run the daemon drives: the asks it
// opens wait in the daemon's list until an answer comes through the API.
// Deadlines are the machine's: it expires an ask at its deadline by itself.
type asker struct {
	answers chan orchestrator.Answer

	mu   sync.Mutex
	open map[string]state.Ask // by ask id
}

func newAsker() *asker {
	return &asker{answers: make(chan orchestrator.Answer, 64), open: make(map[string]state.Ask)}
}

// Open records an ask as open (called on the driver's loop).
func (a *asker) Open(agent string, k state.Ask) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.open[k.ID] = k
}

// Answers delivers the answers given through the API.
func (a *asker) Answers() <-chan orchestrator.Answer { return a.answers }

// answer hands text to the run as the answer to ask id. It reports false
// when this drive never opened that ask or it was answered already.
func (a *asker) answer(id, text string) bool {
	a.mu.Lock()
	_, ok := a.open[id]
	delete(a.open, id)
	a.mu.Unlock()
	if !ok {
		return false
	}
	a.answers <- orchestrator.Answer{AskID: id, Text: text}
	return true
}
