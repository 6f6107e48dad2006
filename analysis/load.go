package analysis

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"raymond/state"
	"raymond/step"
)

// Load analyses the transcript of src as far as it goes. Only a folder
// that cannot be read at all, or holds no transcript, is an error; a torn
// or incomplete transcript gives a Run with Notes.
func Load(src Source) (*Run, error) {
	f, err := readFolder(src.Dir)
	if err != nil {
		return nil, err
	}
	b := newBuilder()
	r := b.r
	r.ID = filepath.Base(src.Dir)
	r.Dir = src.Dir
	r.Running = src.Running
	b.replay(f.events)
	b.addOrphans(f, src.State)
	b.fillFromMeta(f)
	b.settleSteps()
	b.fromState(src.State)
	b.finish(src)
	b.notes(src, f)
	r.Complete = b.lastEnded && len(r.Notes) == 0
	return r, nil
}

// addOrphans adds the steps that have files but no event: the events file
// is missing or ends early. Each agent's steps are added in seq order.
func (b *builder) addOrphans(f *folder, st *state.Run) {
	known := make([]string, 0, len(b.agents))
	for id := range b.agents {
		known = append(known, id)
	}
	if st != nil {
		for i := range st.Agents {
			known = append(known, st.Agents[i].ID)
		}
	}
	var orphans []*Step
	for _, name := range f.names {
		if b.steps[name] != nil {
			continue
		}
		sf := f.files[name]
		agent := ""
		if sf.m != nil {
			agent = sf.m.Agent
		} else {
			agent = longestAgent(name, known)
		}
		id, stem, seq := splitName(name, agent)
		s := &Step{Name: name, Agent: id, Seq: seq, State: stem + ".md"}
		if m := sf.m; m != nil {
			s.State, s.Seq, s.Started = m.State, m.Seq, m.Started.UTC()
		}
		orphans = append(orphans, s)
	}
	// Agents already known keep their place; new ones come in the order
	// of their first step.
	first := make(map[string]int)
	for i, a := range b.r.Agents {
		first[a.ID] = i
	}
	slices.SortStableFunc(orphans, func(x, y *Step) int {
		if c := cmp.Compare(rank(first, x.Agent), rank(first, y.Agent)); c != 0 {
			return c
		}
		if x.Agent != y.Agent {
			if c := x.Started.Compare(y.Started); c != 0 {
				return c
			}
			return strings.Compare(x.Agent, y.Agent)
		}
		return cmp.Compare(x.Seq, y.Seq)
	})
	for _, s := range orphans {
		b.addStep(s)
	}
}

// rank is an agent's place among the known agents, after all of them when
// it is new.
func rank(first map[string]int, id string) int {
	if i, ok := first[id]; ok {
		return i
	}
	return len(first)
}

// longestAgent returns the longest of known whose part of a step name
// (step.NamePart) name starts with, followed by an underscore; "" when none
// does.
func longestAgent(name string, known []string) string {
	best := ""
	for _, id := range known {
		if len(id) > len(best) && strings.HasPrefix(name, step.NamePart(id, step.MaxAgentPart)+"_") {
			best = id
		}
	}
	return best
}

// fillFromMeta completes every step with what its files say.
func (b *builder) fillFromMeta(f *folder) {
	for _, s := range b.r.Steps {
		sf := f.files[s.Name]
		if sf == nil {
			fillScript(s, &stepFiles{}) // a script step whose files are all lost
			continue
		}
		s.HasPrompt, s.HasLines, s.HasMeta = sf.prompt, sf.lines, sf.m != nil
		m := sf.m
		if m == nil {
			fillScript(s, sf)
			continue
		}
		if m.Seq != 0 {
			s.Seq = m.Seq
		}
		if s.Attempt == 0 {
			s.Attempt = m.Attempt
		}
		s.Reminder = s.Reminder || m.Reminder
		s.SessionMode, s.ResumedSession = m.SessionMode, m.ResumedSession
		if m.SessionID != "" {
			s.Session = m.SessionID
		}
		s.Model, s.Runner = m.Model, m.Runner
		s.Checkpoint = m.Checkpoint
		fillScript(s, sf)
		s.Tokens = Tokens{
			Input: m.Usage.InputTokens, Output: m.Usage.OutputTokens,
			CacheRead: m.Usage.CacheReadInputTokens, CacheCreation: m.Usage.CacheCreationInputTokens,
		}
		if s.Error == "" {
			s.Error = m.Error
		}
		s.ExitCode, s.Signal, s.Stderr = m.ExitCode, m.Signal, strings.TrimSpace(m.StderrTail)
		if !b.ended[s.Name] {
			// No step_ended event: the meta file is all there is.
			s.Outcome, s.CostUSD = m.Outcome, m.CostUSD
			if s.Started.IsZero() {
				s.Started = m.Started.UTC()
			}
			s.Ended = m.Ended.UTC()
			if s.Ended.IsZero() {
				s.Ended = s.Started.Add(time.Duration(m.DurationMS) * time.Millisecond)
			}
			s.Duration = max(s.Ended.Sub(s.Started), 0)
		}
	}
}

// fromState takes from the state file what the transcript may lack: who
// forked whom, how agents ended, the budget.
func (b *builder) fromState(st *state.Run) {
	r := b.r
	for _, a := range r.Agents {
		if a.Parent == "" && a.ID != "main" {
			a.Parent = parentOf(a.ID, b.agents)
		}
	}
	if st == nil {
		if !strings.Contains(r.Workflow, "://") {
			r.ScopeDir = r.Workflow // run_started names the folder, a URL aside
		}
		return
	}
	r.ScopeDir = st.ScopeDir
	r.BudgetUSD = st.BudgetUSD
	if r.Workflow == "" {
		r.Workflow = st.ScopeDir
		if st.ScopeURL != "" { // its copy in the registry is no name the user gave
			r.Workflow = st.ScopeURL
		}
	}
	if r.Entry == "" {
		r.Entry = st.EntryState
	}
	for i := range st.Agents {
		sa := &st.Agents[i]
		a := b.agents[sa.ID]
		if a == nil {
			continue
		}
		if sa.Parent != "" {
			a.Parent = sa.Parent
		}
		if a.Status == "" && sa.Status.Ended() {
			a.Status, a.Result, a.Error = string(sa.Status), sa.Result, sa.LastError
		}
	}
}

// parentOf guesses the parent of a forked agent whose spawn event is lost:
// its id is the parent's id and one more segment.
func parentOf(id string, agents map[string]*Agent) string {
	if i := strings.LastIndexByte(id, '_'); i > 0 && agents[id[:i]] != nil {
		return id[:i]
	}
	return ""
}

// finish derives what the events do not say directly: the run's status,
// times, totals, per-agent and per-visit sums, per-state statistics and the
// critical path.
func (b *builder) finish(src Source) {
	r := b.r
	b.status(src)
	slices.SortStableFunc(r.Steps, func(x, y *Step) int { return x.Started.Compare(y.Started) })
	b.dropNotStarted()
	b.times(src)

	var sum float64
	for _, s := range r.Steps {
		sum += s.CostUSD
		r.Tokens.add(s.Tokens)
		if s.Outcome != "" && s.Outcome != "success" && s.Outcome != "canceled" {
			r.Failures++
		}
	}
	r.CostUSD = usd(sum)
	if b.haveTotal {
		r.CostUSD = b.lastTotal
	}
	if st := src.State; st != nil {
		r.CostUSD = max(r.CostUSD, st.TotalCostUSD)
		if st.Result != nil && r.Result == nil {
			r.Result = st.Result
		}
		if r.Error == "" && !b.lastEnded {
			r.Error = st.Error
		}
	}
	if main := b.agents["main"]; r.Result == nil && main != nil && main.Status == "completed" {
		r.Result = main.Result
	}
	r.StepCount, r.AgentCount = len(r.Steps), len(r.Agents)
	b.sumAgents(src.Running)
	if r.Status == "failed" && r.Error == "" {
		r.Error = failedAgents(r)
	}
	b.settleAsks()
	r.States = stateStats(r)
	for _, l := range CriticalPath(r) {
		r.CriticalPath = append(r.CriticalPath, l.Step.Name)
	}
}

// status settles the run's status: run_ended's, else the state file's,
// else what the events say.
func (b *builder) status(src Source) {
	r := b.r
	switch {
	case b.lastEnded:
	case src.State != nil:
		r.Status = string(src.State.Status)
	case src.Running:
		r.Status = "running"
	default:
		r.Status = "unknown"
	}
	if src.Running && !b.lastEnded && len(r.Waits) > 0 && r.Waits[len(r.Waits)-1].Ended.IsZero() {
		r.Status = "waiting"
	}
}

// dropNotStarted moves the steps that never ran a process from the run's
// steps, its agents' and its visits' to Run.NotStarted: they did nothing
// and cost nothing, and the agent runs the same step again on resume. A
// visit left with no step is one that did not run (Visit.NotRun).
func (b *builder) dropNotStarted() {
	r := b.r
	r.Steps = slices.DeleteFunc(r.Steps, func(s *Step) bool {
		if s.NotStarted {
			r.NotStarted = append(r.NotStarted, s)
		}
		return s.NotStarted
	})
	if len(r.NotStarted) == 0 {
		return
	}
	dropped := func(name string) bool { s := b.steps[name]; return s != nil && s.NotStarted }
	for _, a := range r.Agents {
		a.StepNames = slices.DeleteFunc(a.StepNames, dropped)
		for _, v := range a.Path {
			v.Steps = slices.DeleteFunc(v.Steps, dropped)
		}
	}
}

// sumAgents adds up each agent's and each visit's steps, says why a visit
// that ran none did not (Visit.NotRun), and settles the
// status of agents that have not ended.
func (b *builder) sumAgents(running bool) {
	for _, a := range b.r.Agents {
		for i, name := range a.StepNames {
			if i+1 < len(a.StepNames) {
				b.steps[name].Next = a.StepNames[i+1]
			}
		}
		for _, v := range a.Path {
			for _, name := range v.Steps {
				s := b.steps[name]
				v.CostUSD += s.CostUSD
				v.Duration += s.Duration
			}
			v.CostUSD = usd(v.CostUSD)
			v.DurationMS = millis(v.Duration)
			a.CostUSD += v.CostUSD
		}
		a.CostUSD = usd(a.CostUSD)
		switch {
		case a.Status != "":
		case b.r.pendingAsk(a.ID) != nil:
			a.Status = "asking"
		case running:
			a.Status = "running"
		default:
			a.Status = "stopped"
		}
		for _, v := range a.Path {
			if len(v.Steps) == 0 && v.Exit == "" {
				v.NotRun = notRunReason(b.r, a)
			}
		}
		if a.Started.IsZero() && len(a.StepNames) > 0 {
			a.Started = b.steps[a.StepNames[0]].Started
		}
		a.Started = a.Started.UTC()
		a.Ended = a.Ended.UTC()
	}
}

func (t *Tokens) add(u Tokens) {
	t.Input += u.Input
	t.Output += u.Output
	t.CacheRead += u.CacheRead
	t.CacheCreation += u.CacheCreation
}

// Sum returns all the tokens together.
func (t Tokens) Sum() int64 { return t.Input + t.Output + t.CacheRead + t.CacheCreation }
