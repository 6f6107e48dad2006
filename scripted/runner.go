package scripted

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"raymond/claude"
	"raymond/state"
	"raymond/step"
	"raymond/workflow"
)

// Runner answers steps from a replies file. It is safe for concurrent use.
// The zero Runner has no replies: every step finds none left.
type Runner struct {
	// name is the replies file, as given to Load or Parse.
	name string
	// dir is the absolute folder of the file Load read, which relative
	// wait_for paths start from; "" (the working directory) after Parse.
	dir string
	// queues are the states' queues in the order of the file.
	queues []*queue
	// byName finds a queue by any name a step may give its state, and an
	// agent's own queue by AGENT/name; a workflow's own queues are under
	// those names qualified (qualify).
	byName map[string]*queue
	// qualified says some queues belong to one workflow.
	qualified bool
	// scope is the run's workflow (InWorkflow): the scope of its steps
	// whose Ref has none.
	scope string

	mu sync.Mutex // guards the queues' positions, the replies' use and noneLeft
	// noneLeft lists the steps that found no reply, in the order they ran.
	noneLeft []Exhausted
}

var _ step.Runner = (*Runner)(nil)

// Salvage implements step.Salvager: a scripted step's lines are claude's.
func (r *Runner) Salvage(req step.Request, lines []byte) (step.Result, bool) {
	return claude.Salvage(req, lines)
}

// Name implements step.Named.
func (r *Runner) Name() string { return "scripted" }

// queue is the queue of one key of the replies file: a state's replies,
// shared by every agent, or one agent's own replies at a state.
type queue struct {
	// key is the state as written in the replies file: STATE or
	// AGENT/STATE, after "WORKFLOW: " for a workflow's own.
	key string
	// workflow is the workflow block the key is written in, "" for none.
	workflow string
	// agent is the agent of an AGENT/STATE key, "" for a shared queue;
	// state the state part of key.
	agent   string
	state   string
	replies []*reply
	// next is the index of the first reply that may have steps left.
	next int
	// front holds replies given back by canceled steps; they are served
	// before anything else.
	front []*reply
}

// take returns the next reply of q and counts it as used, or nil if none is
// left.
func (q *queue) take() *reply {
	if len(q.front) > 0 {
		rep := q.front[0]
		q.front = q.front[1:]
		rep.used++
		return rep
	}
	for ; q.next < len(q.replies); q.next++ {
		if rep := q.replies[q.next]; rep.left() {
			rep.used++
			return rep
		}
	}
	return nil
}

// giveBack undoes take: rep becomes the next reply served.
func (q *queue) giveBack(rep *reply) {
	rep.used--
	q.front = append([]*reply{rep}, q.front...)
}

// offered counts the steps q's replies answer in all; it only matters once
// they are used up, so no reply repeats.
func (q *queue) offered() int {
	n := 0
	for _, rep := range q.replies {
		n += rep.times
	}
	return n
}

// Run answers one step with the next reply for its state: it streams an
// init line, waits for the reply's wait_for file, streams its say blocks
// and tool calls, waits its delay, then ends the step as the reply's
// outcome says. Lines and events go to h as claude.Run would pass them,
// from the calling goroutine.
//
// The lines go through claude's own decoder and classification, so a
// scripted step ends exactly as a real claude writing the same lines would.
// A step of a state with no reply left ends as claude's invocation error
// (step.Failed), its Stderr naming the state and how many replies the file
// gives. A context done before or during either wait ends the step as
// step.Canceled and gives the reply back, to be served first to the next
// step of the state. A request no claude process would accept (a resume or
// branch step without a session to resume, an unknown session mode) is a
// step that did not start.
//
// A script step (req.Script set) is answered like any other, except that
// it costs 0 and has no session, and a reply whose outcome claude would
// have retried or waited for (crash, timeout, api_error, usage_limit) fails
// it: a script step is never retried by itself.
func (r *Runner) Run(ctx context.Context, req step.Request, h step.Handler) step.Result {
	return r.run(ctx, req, h, nil, nil)
}

// run is Run with the step's reply taken already (rep non-nil) or not.
func (r *Runner) run(ctx context.Context, req step.Request, h step.Handler, q *queue, rep *reply) step.Result {
	res, err := r.playReply(ctx, req, claude.Handler{OnEvent: claude.Live(h.OnEvent), OnLine: h.OnLine, OnStderr: h.OnStderr}, q, rep)
	if err != nil {
		return step.NotStarted(step.Failed, err)
	}
	if req.Script != nil {
		return scriptResult(claude.Neutral(res, req), req)
	}
	return claude.Neutral(res, req)
}

// scriptResult is the result of a script step answered by a reply: no
// cost, no session, and never an outcome that runs the step again.
func scriptResult(res step.Result, req step.Request) step.Result {
	res.SessionID, res.Billed, res.CostUSD, res.SessionCostUSD = "", false, 0, 0
	res.Usage, res.Turns, res.Model = step.Usage{}, 0, ""
	switch res.Outcome {
	case step.Transient, step.UsageLimit, step.BudgetExhausted:
		res.Outcome = step.Failed
		res.Reason = fmt.Sprintf("%s (a scripted reply for the script %s)", res.Reason, req.Step.State)
	}
	return res
}

// play runs the step as Run does and returns claude's own reading of its
// lines, before it is put in the orchestrator's terms.
func (r *Runner) play(ctx context.Context, req step.Request, h claude.Handler) (*claude.Result, error) {
	return r.playReply(ctx, req, h, nil, nil)
}

// playReply is play with the step's reply taken already (rep non-nil,
// taken from q) or not.
func (r *Runner) playReply(ctx context.Context, req step.Request, h claude.Handler, q *queue, rep *reply) (*claude.Result, error) {
	var sid string
	if req.Script != nil {
		// A script has no session; the lines need one all the same.
		sid = claude.NewSessionID()
	} else {
		var err error
		if sid, err = sessionOf(req.Step); err != nil {
			return nil, fmt.Errorf("scripted step %s: %w", req.Name(), err)
		}
	}
	if ctx.Err() != nil {
		if rep != nil {
			r.giveBack(q, rep)
		}
		now := time.Now()
		return &claude.Result{Outcome: claude.Canceled, NotStarted: true, ExitCode: -1, Started: now, Ended: now}, nil
	}
	if rep == nil {
		q, rep = r.take(req)
	}
	if rep == nil {
		return r.exhausted(req, h), nil
	}
	s := newStream(req, rep, sid, h)
	if q.agent != "" {
		s.list = q.agent + "/" + req.Step.State
	}
	if err := s.writeFiles(); err != nil {
		// The reply cannot be played as written: the step ends as a claude
		// that refuses to start does, naming the file.
		if h.OnStderr != nil {
			h.OnStderr(err.Error())
		}
		now := time.Now()
		res := claude.NewDecoder(nil).Finish(claude.End{ExitCode: 1, Stderr: err.Error() + "\n"})
		res.Started, res.Ended = now, now
		return res, nil
	}
	s.writeInit()
	// The step's wall-clock limit holds for a scripted step as for a real
	// one: a reply that waits or sleeps past it ends as a step timeout.
	stepCtx := ctx
	limit, from := claude.StepLimit(req)
	if limit > 0 {
		var cancel context.CancelFunc
		stepCtx, cancel = context.WithTimeoutCause(ctx, limit, errStepLimit)
		defer cancel()
	}
	ok := r.waitFor(stepCtx, s)
	if ok {
		s.messages()
		ok = !s.looped() && sleep(stepCtx, rep.delay)
	}
	switch {
	case s.looped():
		return s.killed(claude.End{ExitCode: -1, Signal: claude.SignalName(syscall.SIGTERM), Looped: true}), nil
	case !ok && ctx.Err() == nil && context.Cause(stepCtx) == errStepLimit:
		return s.killed(claude.End{ExitCode: -1, Signal: claude.SignalName(syscall.SIGTERM), StepTimedOut: true, Limit: limit, LimitFrom: from}), nil
	case !ok:
		r.giveBack(q, rep)
		return s.killed(claude.End{ExitCode: -1, Signal: claude.SignalName(syscall.SIGTERM), Canceled: true}), nil
	}
	return s.finish(), nil
}

// errStepLimit is the cause of a scripted step stopped by its step timeout.
var errStepLimit = errors.New("step timeout")

// take takes the next reply for the step: from its agent's own queue at
// the state if that has one left, else from the state's shared queue. It
// returns a nil reply when neither has one.
func (r *Runner) take(req step.Request) (*queue, *reply) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, q := range r.queuesOf(req) {
		if rep := q.take(); rep != nil {
			return q, rep
		}
	}
	return nil, nil
}

// queuesOf returns the queues a step takes replies from, in order: those
// of its workflow's block (the agent's own, then the shared one), then the
// agent's own, then the shared one.
func (r *Runner) queuesOf(req step.Request) []*queue {
	agent, stateName := req.Agent, req.Step.State
	var qs []*queue
	add := func(name string) {
		if q := r.byName[name]; q != nil && !slices.Contains(qs, q) {
			qs = append(qs, q)
		}
	}
	var wfs []string
	if r.qualified {
		scope := req.Step.Scope
		if scope == "" {
			scope = r.scope
		}
		wfs = workflowNames(scope)
	}
	for _, wf := range append(wfs, "") {
		if agent != "" {
			add(qualify(wf, agent+"/"+stateName))
		}
		add(qualify(wf, stateName))
	}
	return qs
}

// qualify returns the name under which byName holds name for workflow wf.
func qualify(wf, name string) string {
	if wf == "" {
		return name
	}
	return wf + "\x00" + name
}

// InWorkflow tells r the workflow of the run it answers (its scope
// folder or file): the steps of that workflow take the replies of its
// block in the file. A run's steps in a workflow it calls name theirs.
func (r *Runner) InWorkflow(scope string) { r.scope = scope }

// workflowNames returns the names a workflow block may give the workflow
// at scope: its folder's or file's name (greet, or greet.yaml and greet
// for a YAML file), that of the folder holding its states/ folder, and the
// ends of its path (examples/greet).
func workflowNames(scope string) []string {
	if scope == "" {
		return nil
	}
	scope = filepath.Clean(scope)
	parts := strings.Split(filepath.ToSlash(scope), "/")
	var out []string
	for i := len(parts) - 1; i >= 1 && len(out) < 8; i-- {
		out = append(out, strings.Join(parts[i:], "/"))
	}
	base := filepath.Base(scope)
	if ext := filepath.Ext(base); ext == ".yaml" || ext == ".yml" || ext == ".zip" {
		out = append(out, strings.TrimSuffix(base, ext))
	}
	if base == "states" {
		out = append(out, filepath.Base(filepath.Dir(scope)))
	}
	return out
}

func (r *Runner) giveBack(q *queue, rep *reply) {
	r.mu.Lock()
	defer r.mu.Unlock()
	q.giveBack(rep)
}

// exhausted records a step that finds no reply and returns its result:
// like a claude that refuses to start, it writes nothing on stdout and says
// why on stderr.
func (r *Runner) exhausted(req step.Request, h claude.Handler) *claude.Result {
	file := r.name
	if file == "" {
		file = "the replies file"
	}
	stateName := req.Step.State
	r.mu.Lock()
	qs := r.queuesOf(req)
	offered, own := 0, 0
	for _, q := range qs {
		offered += q.offered()
		if q.agent != "" {
			own = q.offered()
		}
	}
	r.noneLeft = append(r.noneLeft, Exhausted{State: stateName, Agent: req.Agent, Step: req.Name(), Listed: offered > 0})
	r.mu.Unlock()

	msg := fmt.Sprintf("no scripted reply for %s: %s gives none for it", stateName, file)
	switch {
	case offered > 0 && own > 0:
		msg = fmt.Sprintf("no scripted reply left for %s at %s: %s gives %d (%d of them for %s) and all were used",
			req.Agent, stateName, file, offered, own, req.Agent)
	case offered > 0:
		msg = fmt.Sprintf("no scripted reply left for %s: %s gives %d and all were used", stateName, file, offered)
	}
	if h.OnStderr != nil {
		h.OnStderr(msg)
	}
	now := time.Now()
	res := claude.NewDecoder(nil).Finish(claude.End{ExitCode: 1, Stderr: msg + "\n"})
	res.Started, res.Ended = now, now
	return res
}

// Exhausted is a step that found no reply left for it.
type Exhausted struct {
	// State is the state of the step, as the workflow names it (WORKER.md).
	State string
	// Agent is the agent whose step it was.
	Agent string
	// Step is the step's transcript name, main_worker3_WORKER_001.
	Step string
	// Listed is true when the file gives replies for the state (or for the
	// agent at the state) and they were all used; false when it gives none.
	Listed bool
}

// Exhausted lists the steps that found no reply, in the order they asked.
// Such a step ends as an invocation error and fails its agent; `raymond
// test` reports them as the cause.
func (r *Runner) Exhausted() []Exhausted {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.noneLeft)
}

// sessionOf returns the session a step runs in: the one it resumes, or for
// a new session or a branch its pre-minted id (minted here if missing).
// An empty mode counts as new, as it does for the claude runner.
func sessionOf(s state.Step) (string, error) {
	switch s.Mode {
	case state.SessionNew, "":
	case state.SessionBranch:
		if s.ResumeSession == "" {
			return "", errors.New("branch step without a session to branch from")
		}
	case state.SessionResume:
		if s.ResumeSession == "" {
			return "", errors.New("resume step without a session to resume")
		}
		return s.ResumeSession, nil
	default:
		return "", fmt.Errorf("unknown session mode %q", s.Mode)
	}
	if s.SessionID != "" {
		return s.SessionID, nil
	}
	return claude.NewSessionID(), nil
}

// sleep waits d and reports whether it did; false means ctx was done first.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// waitForPoll is how often waitFor looks for its file.
const waitForPoll = 5 * time.Millisecond

// waitFor waits until the reply's wait_for file exists, if it has one, and
// reports whether it does; false means ctx was done first.
func (r *Runner) waitFor(ctx context.Context, s *stream) bool {
	if s.rep.waitFor == "" {
		return true
	}
	path := s.render(s.rep.waitFor)
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.dir, path)
	}
	tick := time.NewTicker(waitForPoll)
	defer tick.Stop()
	for {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

// Unused is a reply that did not answer all the steps it could.
type Unused struct {
	// State is the state as written in the replies file.
	State string
	// Index is the reply's position in the state's list, from 1.
	Index int
	// Text sums the reply up: the first line of its text, cut short, or its
	// outcome ("outcome: crash") when it has no text.
	Text string
	// Used counts the steps it answered.
	Used int
	// Times is how many steps it could answer; 0 for a reply with repeat:
	// true, which is listed only when it answered none.
	Times int
}

// Unused lists the replies that answered fewer steps than they could, in
// the order of the file: replies never used, replies with times: N that
// answered fewer than N steps, and repeat: true replies that answered none.
// `raymond test` reports them: a workflow that leaves replies over did not
// take the path its test expected.
func (r *Runner) Unused() []Unused {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Unused
	for _, q := range r.queues {
		for _, rep := range q.replies {
			if rep.repeat && rep.used > 0 || !rep.repeat && rep.used >= rep.times {
				continue
			}
			u := Unused{State: q.key, Index: rep.index, Text: rep.summary(), Used: rep.used, Times: rep.times}
			if rep.repeat {
				u.Times = 0
			}
			out = append(out, u)
		}
	}
	return out
}

// Check reports the states of the replies file that name no state of the
// workflow in scope, nor of the workflows it calls (also, a typo would
// otherwise show only as a step that finds no reply). It checks every state
// and joins the errors, each a *ReplyError; the error of a state found
// nowhere is the one scope gave.
func (r *Runner) Check(scope *workflow.Scope, called ...*workflow.Scope) error {
	var errs []error
	all := append([]*workflow.Scope{scope}, called...)
	for _, q := range r.queues {
		in := all
		if q.workflow != "" {
			in = nil
			for _, s := range all {
				if slices.Contains(workflowNames(s.Dir()), q.workflow) {
					in = append(in, s)
				}
			}
			if len(in) == 0 {
				errs = append(errs, r.keyError(q.key, 0, fmt.Errorf("replies for %q name no workflow of the run: %s is not the name of %s nor of a workflow it reaches",
					q.key, q.workflow, filepath.Base(scope.Dir()))))
				continue
			}
		}
		_, err := in[0].Resolve(q.state)
		for _, c := range in[1:] {
			if err == nil {
				break
			}
			if _, cerr := c.Resolve(q.state); cerr == nil {
				err = nil
			}
		}
		if err != nil {
			if _, ok := errors.AsType[*workflow.TargetError](err); ok {
				err = fmt.Errorf("replies for %q name no state of the workflow: %w", q.key, err)
			} else {
				err = fmt.Errorf("check replies for %q: %w", q.key, err)
			}
			errs = append(errs, r.keyError(q.key, 0, err))
		}
	}
	return errors.Join(errs...)
}
