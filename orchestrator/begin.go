package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"raymond/machine"
	"raymond/parsing"
	"raymond/permission"
	projects "raymond/project"
	"raymond/report"
	"raymond/state"
	"raymond/step"
	"raymond/transcript"
	"raymond/workflow"
)

// prepare answers the machine's Prepare effects: for each, it loads the
// state, mints a fresh session id and renders the prompt. The loaded state
// is kept for the step's decision when it ends.
func (g *driving) prepare(ps []machine.Prepare) machine.Prepared {
	out := machine.Prepared{Now: g.clock.Now(), Steps: make([]machine.PreparedStep, 0, len(ps))}
	r := g.m.Run()
	var wsErrs map[string]error
	if r.Workspace.Worktree() {
		next := make(map[string]int, len(ps))
		for _, p := range ps {
			if a := g.agent(p.Agent); a != nil {
				next[p.Agent] = a.Steps + 1
			}
		}
		wsErrs = g.readyWorkspaces(next)
	}
	for _, p := range ps {
		ref := p.Step.Ref.In(r.ScopeDir)
		if ref.URL == "" && ref.Scope == r.ScopeDir {
			ref.URL = r.ScopeURL
		}
		scope, err := g.scopes.Open(ref.Scope, ref.URL)
		if err != nil {
			out.Steps = append(out.Steps, machine.PreparedStep{Agent: p.Agent, Err: fmt.Errorf("%s: %w", p.Step.State, err)})
			continue
		}
		st, err := scope.Load(p.Step.State)
		if err != nil {
			out.Steps = append(out.Steps, machine.PreparedStep{Agent: p.Agent, Err: err})
			continue
		}
		if st.Script && g.d.Scripts == nil {
			err := fmt.Errorf("%s is a script state, and this driver runs none", st.Name)
			out.Steps = append(out.Steps, machine.PreparedStep{Agent: p.Agent, Err: err})
			continue
		}
		if folder := p.Vars["task_folder"]; folder != "" && (st.Script || usesTaskFolder(st.Body)) {
			// Made when first handed out (protocol §16).
			if err := makeTaskFolder(folder); err != nil {
				out.Steps = append(out.Steps, machine.PreparedStep{Agent: p.Agent, Err: fmt.Errorf("task folder: %w", err)})
				continue
			}
		}
		prompt := ""
		if p.Step.Reminder == "" && !st.Script {
			if name, ok := workflow.NULPlaceholder(st.Body, p.Vars); ok {
				err := fmt.Errorf("%s: the value of {{%s}} holds a NUL byte, which cannot be sent in a prompt", st.Name, name)
				out.Steps = append(out.Steps, machine.PreparedStep{Agent: p.Agent, Err: err})
				continue
			}
			prompt = workflow.Render(st.Body, p.Vars)
		}
		if err := wsErrs[p.Agent]; err != nil {
			out.Steps = append(out.Steps, machine.PreparedStep{Agent: p.Agent, Err: err})
			continue
		}
		model, fallbacks, mcp := st.Policy.Model, st.Policy.Fallbacks, st.Policy.MCP
		if m := scope.Manifest(); m != nil && !st.Script {
			// The workflow's own, for the states that name none.
			if model == "" {
				model, fallbacks = m.Model, m.Fallbacks
			}
			if mcp == nil {
				mcp = m.MCP
			}
		}
		var mcpFile string
		var mcpServers []string
		if mcp != nil && !st.Script {
			// Checked now, before the step is paid for: a state that
			// names servers and would get none fails its agent.
			if mcpFile, mcpServers, err = g.mcpFile(scope, st.Name, mcp); err != nil {
				out.Steps = append(out.Steps, machine.PreparedStep{Agent: p.Agent, Err: err})
				continue
			}
		}
		g.launches[p.Agent] = &launch{st: st, scope: scope}
		ps := machine.PreparedStep{
			Agent: p.Agent, SessionID: step.NewSessionID(), Script: st.Script,
			Model: model, Fallbacks: fallbacks, MCPConfig: mcpFile, MCPServers: mcpServers,
			Effort: st.Policy.Effort, StepTimeout: st.Policy.StepTimeout, Timeout: st.Policy.Timeout,
			AllowedTools: st.Policy.AllowedTools, DisallowedTools: st.Policy.DisallowedTools, PermissionMode: st.Policy.PermissionMode,
			Warnings: st.Warnings, Prompt: prompt, MaxVisits: st.Policy.MaxVisits,
			NoCycleCheck: st.Policy.CycleCheck != nil && !*st.Policy.CycleCheck,
		}
		if r.Workspace.Worktree() {
			ps.OnConflict = onConflictOf(scope, st)
		}
		ps.MaxTurns, ps.LoopWarn, ps.LoopStop = st.Policy.MaxTurns, st.Policy.LoopWarn, st.Policy.LoopStop
		if t, ok := st.Policy.Fallback(); ok {
			// The target by its file name, as a tag's is resolved: ASK is
			// ASK.md, counted, drawn and answered as ASK.md. One that does
			// not resolve is kept as written, and fails when it is taken.
			if t.Target != "" {
				if name, err := scope.Resolve(t.Target); err == nil {
					t.Target = name
				}
			}
			ps.OnMaxVisits = &t
		}
		out.Steps = append(out.Steps, ps)
	}
	return out
}

// start runs a step in a goroutine of its own: its transcript files open
// beside it, its live events go to the progress printer, and its end comes
// back to the loop on g.done.
func (g *driving) start(req step.Request) {
	l := g.launches[req.Agent]
	if l == nil { // cannot happen: a Start follows its Prepared
		l = &launch{st: &workflow.State{Name: req.Step.State}}
		g.launches[req.Agent] = l
	}
	runner := g.runner
	if l.st.Script {
		runner = g.d.Scripts
		req.Script = &step.Script{Path: l.st.ScriptPath, Body: []byte(l.st.Body)}
	}
	l.req = req
	name := req.Name()
	l.ready = make(chan struct{})
	tr := g.tr
	script := l.st.Script
	if !script {
		req.Spool = g.spool(name)
		l.req.Spool = req.Spool
	}
	before := g.before()
	g.steps.Go(func() {
		defer close(l.ready)
		if script {
			l.log = tr.ScriptStep(name)
			l.log.Before(before)
			return
		}
		l.log = tr.SpooledStep(name)
		l.log.Prompt(req.Prompt)
		l.log.Before(before)
	})
	s := req.Step
	started := transcript.Event{Type: transcript.EventStepStarted, Agent: req.Agent, Step: name, State: s.State,
		Session: firstOf(s.SessionID, s.ResumeSession), Attempt: s.Attempt,
		Seq: req.Seq, Mode: string(s.Mode), Model: s.Model, Fallbacks: s.Fallbacks, MCPServers: s.MCPServers, Reminder: s.Reminder != ""}
	if s.AllowedTools != nil || s.DisallowedTools != nil || s.PermissionMode != "" {
		started.AllowedTools, started.DisallowedTools = s.AllowedTools, s.DisallowedTools
		mode, skip := req.Permissions()
		if skip {
			mode = permission.Bypass
		}
		started.PermissionMode = mode
	}
	if script {
		started.Session, started.Mode = "", "script"
	}
	g.publish(started, nil)
	steps := g.stepSinks()
	for _, s := range steps {
		if parent, tracestate := s.StepTrace(req); parent != "" {
			req.TraceParent, req.TraceState = parent, tracestate
			l.req = req
		}
	}
	h := g.handler(l)
	h.OnLine = func(raw []byte) {
		<-l.ready
		l.log.Line(raw)
	}
	h.OnOutput = func(stderr bool, chunk []byte) {
		<-l.ready
		l.log.Output(stderr, chunk)
	}
	h.OnStart = func(p state.Process) {
		g.launched <- machine.Launched{Agent: req.Agent, Seq: req.Seq, Process: p}
	}
	l.started, l.running = nowFunc(), true
	g.run(l, func(ctx context.Context) step.Result { return runner.Run(ctx, req, h) })
}

// run runs a step's runner (run) in a goroutine of its own, with its
// heartbeat, and sends its end, decided, to the loop. In a worktree
// workspace a step that succeeded is checkpointed there, before its end
// is sent: a step run live and a step adopted alike.
func (g *driving) run(l *launch, run func(context.Context) step.Result) {
	ctx := g.ctx
	confine := ""
	if w := g.workspaceOf(l.req.Agent); w != nil {
		l.workspace, confine = w.Dir, w.Dir
	}
	ws, runID := g.d.Workspaces, g.m.Run().WorkflowID
	done := make(chan struct{})
	g.steps.Go(func() { g.heartbeat(l, done) })
	g.steps.Go(func() {
		req := l.req
		ev, warnings := decideStep(g.scopes, l.scope, l.st, req, run(ctx), confine)
		if l.workspace != "" && ws != nil && ev.Result.Outcome == step.Succeeded {
			var warning string
			ev.Checkpoint, warning = checkpoint(ws, l.workspace, CheckpointOf{Run: runID, Agent: req.Agent, State: req.Step.State,
				Seq: req.Seq, CostUSD: ev.Result.CostUSD, Model: firstOf(ev.Result.Model, req.Step.Model)})
			if warning != "" {
				warnings = append(warnings, warning)
			}
		}
		close(done)
		<-l.ready
		g.done <- stepDone{ev: ev, warnings: warnings}
	})
}

// handler is the step.Handler of a step: its live events go to the
// progress printer, what it uses to its heartbeat, and the step sinks
// (the tracer).
func (g *driving) handler(l *launch) step.Handler {
	req := l.req
	steps := g.stepSinks()
	return step.Handler{
		OnEvent: func(e step.Event) {
			for _, s := range steps {
				s.StepEvent(req, e)
			}
			if e.Kind == step.EventToolUse {
				l.mu.Lock()
				l.tool, l.detail = e.Tool, e.Detail
				l.mu.Unlock()
			}
			if ev, ok := report.Activity(req.Agent, req.Step.State, e); ok {
				g.publish(ev, nil)
			}
		},
	}
}

// decideStep decides, when a step succeeded, what its answer says: the
// transition, or why it is refused. Parsing the answer and checking the
// targets and working directories happen here, in the step's goroutine,
// not in the loop. The warnings are about an accepted transition (a cd
// outside the project). worktree is the agent's worktree, "" for none.
func decideStep(scopes *workflow.Scopes, scope *workflow.Scope, st *workflow.State,
	req step.Request, res step.Result, worktree string) (machine.StepEnded, []string) {
	ev := machine.StepEnded{Agent: req.Agent, Seq: req.Seq, Name: req.Name(), Restricted: st.Policy.Restricted(), Script: st.Script}
	ev.Result = res
	warnings := ev.Result.Warnings
	if ev.Result.Outcome != step.Succeeded {
		return ev, warnings
	}
	ev.Transition, ev.DecideErr = workflow.Decide(scopes, scope, st, ev.Result.Text)
	warnings = append(warnings, ev.Transition.Warnings...)
	if ev.DecideErr == nil {
		var more []string
		project, confine := req.Options.ProjectDir, req.Options.Confine
		if worktree != "" {
			// An agent with a worktree stays in it: a cd elsewhere
			// would work outside what its checkpoints commit.
			project, confine = worktree, true
		}
		ev.Cwds, more, ev.DecideErr = resolveCwds(req.Step.Cwd, ev.Transition, project, confine)
		warnings = append(warnings, more...)
	}
	if ev.DecideErr == nil {
		ev.DecideErr = renderInputs(&ev.Transition, req.Vars)
	}
	if _, ok := errors.AsType[*workflow.UseError](ev.DecideErr); ok {
		ev.Fatal = true
	}
	if ev.DecideErr != nil {
		ev.Reminder = workflow.Reminder(ev.DecideErr, st.Policy)
		ev.Accepted = st.Policy.Accepted()
		warnings = nil
	}
	return ev, warnings
}

// resolveCwds resolves the cd attributes of a transition against the
// agent's working directory: [0] for the tag itself, [i+1] for fork i; ""
// where there is none. A cd that names no existing folder is an error the
// model is reminded of. A cd outside project (the folder that holds
// .raymond/; "" for none known) is refused when confine is set, else
// allowed with a warning for the person.
func resolveCwds(cwd string, tr parsing.Transition, project string, confine bool) (cwds, warnings []string, err error) {
	resolve := func(t parsing.Tag) (string, error) {
		dir, ok := t.Attr("cd")
		if !ok {
			return "", nil
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
		dir = filepath.Clean(dir)
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			return "", fmt.Errorf("cd=%q names %s, which is not an existing folder", mustAttr(t, "cd"), dir)
		}
		if project == "" || projects.Within(dir, project) {
			return dir, nil
		}
		where := dir
		if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
			where = dir + " (a link to " + real + ")"
		}
		if confine {
			return "", fmt.Errorf("cd=%q names %s, which is outside the project folder %s; this run keeps agents inside it (confine)",
				mustAttr(t, "cd"), where, project)
		}
		warnings = append(warnings, fmt.Sprintf("cd=%q takes the agent outside the project folder %s, to %s", mustAttr(t, "cd"), project, where))
		return dir, nil
	}
	cwds = make([]string, 1+len(tr.Forks))
	if tr.Tag.Name != parsing.Fork && tr.Tag.Name != parsing.ForkWorkflow {
		if cwds[0], err = resolve(tr.Tag); err != nil {
			return nil, nil, err
		}
	}
	for i, f := range tr.Forks {
		if cwds[i+1], err = resolve(f); err != nil {
			return nil, nil, err
		}
	}
	return cwds, warnings, nil
}

// renderInputs renders the input attributes of a transition's tags with the
// emitting step's template values (protocol §5.1: input="{{input}}"
// forwards the current input), making the task folder when an input hands
// it out.
func renderInputs(tr *parsing.Transition, vars map[string]string) error {
	render := func(t *parsing.Tag) error {
		for i, a := range t.Attrs {
			if a.Key != "input" || !strings.Contains(a.Value, "{{") {
				continue
			}
			if folder := vars["task_folder"]; folder != "" && usesTaskFolder(a.Value) {
				if err := makeTaskFolder(folder); err != nil {
					return fmt.Errorf("task folder: %w", err)
				}
			}
			attrs := slices.Clone(t.Attrs)
			attrs[i].Value = workflow.Render(a.Value, vars)
			t.Attrs = attrs
		}
		return nil
	}
	if err := render(&tr.Tag); err != nil {
		return err
	}
	for i := range tr.Forks {
		if err := render(&tr.Forks[i]); err != nil {
			return err
		}
	}
	if len(tr.Forks) > 0 && (tr.Tag.Name == parsing.Fork || tr.Tag.Name == parsing.ForkWorkflow) {
		tr.Tag = tr.Forks[0]
	}
	return nil
}

// makeTaskFolder makes an agent's task folder, private (0700) whatever the
// umask: what the agent writes there comes from its prompts and its tools,
// as the state and transcripts do, which are private too. A folder an older
// raymond made open to others is closed when it is handed out again;
// failing to (someone else owns it) does not stop the step.
func makeTaskFolder(folder string) error {
	if err := os.MkdirAll(folder, 0o700); err != nil {
		return err
	}
	_ = state.MakePrivate(folder)
	return nil
}

// usesTaskFolder reports whether text has a {{task_folder}} placeholder.
func usesTaskFolder(text string) bool {
	return slices.Contains(workflow.Placeholders(text), "task_folder")
}

func mustAttr(t parsing.Tag, key string) string {
	v, _ := t.Attr(key)
	return v
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
