package wftest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"raymond/analysis"
	"raymond/orchestrator"
	"raymond/scripted"
	"raymond/state"
)

// The values of a case's on_ask.
const (
	// OnAskAnswer, the default, answers the run's asks from the case's
	// answers and lets its timeouts expire; any other ask is left pending.
	OnAskAnswer = "answer"
	// OnAskPause leaves every ask pending, as raymond run --on-ask pause.
	OnAskPause = "pause"
	// OnAskReject fails the agent that asks, as --on-ask reject.
	OnAskReject = "reject"
)

// onAskModes are the values on_ask takes, as error messages list them.
var onAskModes = []string{OnAskAnswer, OnAskPause, OnAskReject}

// ExpectAsk is one ask a case expects, in the order asked: its id and,
// when given, what became of it and the answer it got.
type ExpectAsk struct {
	ID string
	// Status is answered, expired or pending; "" when any will do.
	Status string
	// Answer is the answer it got, nil when not checked.
	Answer *string
}

// askKey is the key of an answer or a timeout as the case gives it, for
// the ask k of agent: its id, AGENT/STATE or STATE, most specific first.
func askKeys(agent string, k state.Ask) []string {
	st := stateKey(k.State)
	return []string{k.ID, agent + "/" + st, st}
}

// normalAskKey writes a key of answers or timeouts as askKeys does: a
// state without its .md.
func normalAskKey(key string) string {
	if strings.HasPrefix(key, "ask_") {
		return key
	}
	if agent, st, ok := strings.Cut(key, "/"); ok {
		return agent + "/" + stateKey(st)
	}
	return stateKey(key)
}

// caseAsker answers a case's asks as a person would at the terminal
// (orchestrator.Asker): each ask the case answers gets its answer at
// once; an ask the case times out gets none, and the instant clock jumps
// to its deadline; any other ask is left pending: the asker then says
// nobody is left to answer, and the run ends asking once nothing else
// can run.
type caseAsker struct {
	mu       sync.Mutex
	queues   map[string][]string // answers left, by normalAskKey
	timeouts []string            // by normalAskKey
	answers  chan orchestrator.Answer
	closed   bool
	// held are the deadlines of asks left pending: the clock never
	// reaches them, so such an ask stays pending rather than expiring.
	held []time.Time
	// pending are the asks left pending, problems what the case asked
	// that cannot be (a timeout for an ask without one), and untimed the
	// asks a problem names, whose fix that problem says already.
	pending  []string
	problems []string
	untimed  []string
}

// maxQueued is how many answers may wait for the driver at once.
const maxQueued = 1024

func newCaseAsker(c *Case) *caseAsker {
	a := &caseAsker{queues: make(map[string][]string), answers: make(chan orchestrator.Answer, maxQueued)}
	for k, q := range c.Answers {
		a.queues[normalAskKey(k)] = slices.Clone(q)
	}
	for _, k := range c.Timeouts {
		a.timeouts = append(a.timeouts, normalAskKey(k))
	}
	return a
}

// Open answers k, lets it time out or leaves it pending; it never blocks.
func (a *caseAsker) Open(agent string, k state.Ask) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, key := range askKeys(agent, k) {
		if q := a.queues[key]; len(q) > 0 && len(a.answers) < maxQueued && !a.closed {
			a.queues[key] = q[1:]
			a.answers <- orchestrator.Answer{AskID: k.ID, Text: q[0]}
			return
		}
		if slices.Contains(a.timeouts, key) {
			if k.Deadline != nil {
				return // the clock jumps to the deadline
			}
			a.problems = append(a.problems, fmt.Sprintf("timeouts: %s has no timeout attribute, so it cannot time out; answer it under answers instead", k.ID))
			a.untimed = append(a.untimed, k.ID)
			break
		}
	}
	a.pending = append(a.pending, k.ID)
	if k.Deadline != nil {
		a.held = append(a.held, *k.Deadline)
	}
	if !a.closed {
		a.closed = true
		close(a.answers)
	}
}

// Answers delivers the answers Open queued.
func (a *caseAsker) Answers() <-chan orchestrator.Answer { return a.answers }

// wait reports whether the clock must not move to at: an answer waits to
// be delivered (it comes first), or at reaches the deadline of an ask
// left pending.
func (a *caseAsker) wait(at time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.answers) > 0 {
		return true
	}
	for _, d := range a.held {
		if !at.Before(d) {
			return true
		}
	}
	return false
}

// unused lists the answers the run never asked for, by key.
func (a *caseAsker) unused() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, k := range slices.Sorted(maps.Keys(a.queues)) {
		if n := len(a.queues[k]); n > 0 {
			out = append(out, fmt.Sprintf("%s (%s)", k, count(n, "answer", "answers")))
		}
	}
	return out
}

// askClock is the instant clock of a case that answers asks: it never
// skips ahead while an answer waits to be delivered, nor to the deadline
// of an ask the case leaves pending.
type askClock struct {
	*orchestrator.InstantClock
	asker *caseAsker
}

// never is a channel that never fires.
var never = make(chan time.Time)

// After is InstantClock.After, unless the asker says to wait.
func (c askClock) After(d time.Duration) <-chan time.Time {
	if c.asker.wait(c.Now().Add(d)) {
		return never
	}
	return c.InstantClock.After(d)
}

// checkAsks compares the run's asks with the case's: the asks the case
// expects, and the asks left pending when the case does not expect the
// run to be asking.
func checkAsks(c *Case, run *analysis.Run, asker *caseAsker) []string {
	var fails []string
	if asker != nil {
		fails = append(fails, asker.problems...)
	}
	if run.Status == "asking" && c.Expect.Status != "asking" {
		for _, k := range run.Asks {
			if k.Status == analysis.AskPending && (asker == nil || !slices.Contains(asker.untimed, k.ID)) {
				fails = append(fails, fmt.Sprintf("ask %s (%s at %s: %s) was not answered; answer it under answers (%s: \"…\") or let it expire under timeouts",
					k.ID, k.Agent, k.State, quote(clip(k.Question, maxReason)), k.ID))
			}
		}
	}
	if e := c.Expect.Asks; e != nil {
		fails = append(fails, compareAsks(e, run.Asks)...)
	}
	if asker != nil {
		if unused := asker.unused(); len(unused) > 0 {
			fails = append(fails, "answers not used: "+strings.Join(unused, ", ")+"; the run never asked for them")
		}
	}
	return fails
}

// compareAsks says how the asks of a run differ from those expected.
func compareAsks(want []ExpectAsk, got []*analysis.Ask) []string {
	var fails []string
	ids := make([]string, len(got))
	for i, k := range got {
		ids[i] = k.ID
	}
	for i, w := range want {
		if i >= len(got) {
			fails = append(fails, fmt.Sprintf("asks: %s was never asked; the run asked %s", w.ID, orNothing(ids)))
			continue
		}
		k := got[i]
		if k.ID != w.ID {
			fails = append(fails, fmt.Sprintf("asks: item %d: got %s, want %s; the run asked %s", i+1, k.ID, w.ID, orNothing(ids)))
			continue
		}
		if w.Status != "" && k.Status != w.Status {
			fails = append(fails, fmt.Sprintf("asks: %s: got %s, want %s", k.ID, k.Status, w.Status))
		}
		if w.Answer != nil {
			switch {
			case k.Answer == nil:
				fails = append(fails, fmt.Sprintf("asks: %s got no answer (%s), want %s", k.ID, k.Status, quote(*w.Answer)))
			case *k.Answer != *w.Answer:
				fails = append(fails, fmt.Sprintf("asks: %s: answer got %s, want %s", k.ID, quote(*k.Answer), quote(*w.Answer)))
			}
		}
	}
	if len(got) > len(want) {
		fails = append(fails, fmt.Sprintf("asks: the run asked %d more than expected: %s", len(got)-len(want), strings.Join(ids[len(want):], ", ")))
	}
	return fails
}

// orNothing lists ids, or says there are none.
func orNothing(ids []string) string {
	if len(ids) == 0 {
		return "nothing"
	}
	return strings.Join(ids, ", ")
}

// asks reads a case's answers, timeouts and on_ask.
func (p *parser) asks(c *Case, fields map[string]any, at []any, label string) {
	if v, ok := fields["on_ask"]; ok {
		if s, _ := v.(string); slices.Contains(onAskModes, s) {
			c.OnAsk = s
		} else {
			p.fail(sub(at, "on_ask"), "%s: on_ask: %s is not a mode; use one of %s", label, scripted.Describe(v), strings.Join(onAskModes, ", "))
		}
	}
	if v, ok := fields["answers"]; ok {
		m, ok := v.(scripted.Mapping)
		if !ok {
			p.fail(sub(at, "answers"), "%s: answers must map asks to answers, such as ask_main_1: \"yes\" or main/REVIEW: [\"no\", \"yes\"]", label)
		}
		c.Answers = make(map[string][]string, len(m))
		for _, item := range m {
			key, _ := item.Key.(string)
			where := sub(at, "answers", key)
			if !p.askKey(key, where, label+": answers") {
				continue
			}
			if _, dup := c.Answers[normalAskKey(key)]; dup {
				p.fail(where, "%s: answers: %s is given twice", label, key)
				continue
			}
			var q []string
			switch x := item.Value.(type) {
			case string:
				q = []string{x}
			case []any:
				for i, y := range x {
					s, ok := y.(string)
					if !ok {
						p.fail(sub(where, i), "%s: answers: %s: item %d: %s is not a text; quote it", label, key, i+1, scripted.Describe(y))
					}
					q = append(q, s)
				}
			default:
				p.fail(where, "%s: answers: %s: %s is not an answer; give a text, or a list of texts used in order", label, key, scripted.Describe(item.Value))
			}
			c.Answers[normalAskKey(key)] = q
		}
	}
	if v, ok := fields["timeouts"]; ok {
		list, ok := v.([]any)
		if !ok {
			p.fail(sub(at, "timeouts"), "%s: timeouts must be a list of asks, such as [ask_main_2] or [main/REVIEW]", label)
		}
		for i, item := range list {
			key, _ := item.(string)
			if p.askKey(key, sub(at, "timeouts", i), label+": timeouts") {
				c.Timeouts = append(c.Timeouts, key)
			}
		}
	}
	if c.OnAsk != "" && c.OnAsk != OnAskAnswer && (len(c.Answers) > 0 || len(c.Timeouts) > 0) {
		p.fail(sub(at, "on_ask"), "%s: on_ask: %s answers no ask, so answers and timeouts would never be used; leave out on_ask or them", label, c.OnAsk)
	}
}

// askKey checks a key of answers or timeouts: an ask id (ask_main_1),
// AGENT/STATE or STATE, the state one of the workflow.
func (p *parser) askKey(key string, at []any, label string) bool {
	switch {
	case key == "":
		p.fail(at, "%s: an empty key; name an ask by its id (ask_main_1), AGENT/STATE or STATE", label)
		return false
	case strings.HasPrefix(key, "ask_"):
		return true
	}
	st := key
	if _, s, ok := strings.Cut(key, "/"); ok {
		st = s
	}
	if p.scope != nil {
		if err := p.known(st); err != nil {
			p.fail(at, "%s: %s: %v; name an ask by its id (ask_main_1), AGENT/STATE or STATE", label, key, err)
			return false
		}
	}
	return true
}

// expectAsks reads expect.asks: a list of ask ids, or of mappings with
// the keys id, status and answer.
func (p *parser) expectAsks(v any, at []any, label string) []ExpectAsk {
	list, ok := v.([]any)
	if !ok {
		p.fail(at, "%s: expect: asks must be a list of asks, such as [ask_main_1] or [{id: ask_main_1, answer: \"yes\"}]", label)
		return nil
	}
	out := make([]ExpectAsk, 0, len(list))
	for i, item := range list {
		where := sub(at, i)
		if id, ok := item.(string); ok && id != "" {
			out = append(out, ExpectAsk{ID: id})
			continue
		}
		fields, ok := p.mapping(item, where, label+": expect: asks", "an ask", "id, status, answer")
		if !ok {
			continue
		}
		var e ExpectAsk
		e.ID, _ = fields["id"].(string)
		if e.ID == "" {
			p.fail(where, "%s: expect: asks: item %d has no id", label, i+1)
		}
		if v, ok := fields["status"]; ok {
			s, _ := v.(string)
			if !slices.Contains([]string{analysis.AskAnswered, analysis.AskExpired, analysis.AskPending}, s) {
				p.fail(sub(where, "status"), "%s: expect: asks: %s: status %s is not one of answered, expired, pending", label, e.ID, scripted.Describe(v))
			}
			e.Status = s
		}
		if v, ok := fields["answer"]; ok {
			if s, ok := p.text(v, sub(where, "answer"), label+": expect: asks: answer"); ok {
				e.Answer = &s
			}
		}
		out = append(out, e)
	}
	return out
}

// asks writes the case's answers and timeouts: the answer each answered
// ask got and the asks that expired, by id.
func (rc *recording) asks() {
	var answered, expired []*analysis.Ask
	for _, k := range rc.run.Asks {
		switch k.Status {
		case analysis.AskAnswered:
			if k.Answer != nil {
				answered = append(answered, k)
			}
		case analysis.AskExpired:
			expired = append(expired, k)
		}
	}
	b := &rc.b
	if len(answered) > 0 {
		b.WriteString("  answers:\n")
		for _, k := range answered {
			fmt.Fprintf(b, "    %s: %s\n", k.ID, rc.scalar(*k.Answer, 4, false))
		}
	}
	if len(expired) > 0 {
		ids := make([]string, len(expired))
		for i, k := range expired {
			ids[i] = k.ID
		}
		fmt.Fprintf(b, "  timeouts: [%s]\n", strings.Join(ids, ", "))
	}
}
