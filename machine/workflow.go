package machine

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"raymond/parsing"
	"raymond/state"
)

// MaxWorkflowDepth is how deep a workflow chain may grow (protocol §14.2):
// a cross-workflow tag that would take an agent's chain past it fails the
// agent.
const MaxWorkflowDepth = 8

// scopePath is the path of a reference's scope: "" is the run's own.
func (m *Machine) scopePath(scope string) string {
	if scope == "" {
		return m.run.ScopeDir
	}
	return scope
}

// chainOf returns the agent's workflow chain, spelled out: a chain never
// written is the run's scope alone.
func (m *Machine) chainOf(a *state.Agent) []string {
	if len(a.Chain) > 0 {
		return a.Chain
	}
	return []string{m.run.ScopeDir}
}

// target is the state a cross-workflow tag leads to, its scope written
// as the run writes its own: "" for the run's scope.
func (m *Machine) target(t parsing.Tag) state.Ref {
	if t.Scope == "" || t.Scope == m.run.ScopeDir {
		return state.Ref{State: t.Target}
	}
	return state.Ref{Scope: t.Scope, URL: t.ScopeURL, State: t.Target}
}

// enter moves the agent into the scope a cross-workflow tag leads to: its
// scope changes and the scope joins its chain. It returns the first state.
func (m *Machine) enter(a *state.Agent, t parsing.Tag) state.Ref {
	ref := m.target(t)
	a.Chain = append(slices.Clip(m.chainOf(a)), m.scopePath(ref.Scope))
	a.Scope, a.ScopeURL = ref.Scope, ref.URL
	return ref
}

// workflowDepth says why a cross-workflow tag would take chain past the
// depth limit, or "" when it does not. On a cycle (the target is on the
// chain already) it says so and shows the chain, shortened.
func workflowDepth(t parsing.Tag, chain []string, target string) string {
	if len(chain) < MaxWorkflowDepth+1 {
		return ""
	}
	names := make([]string, 0, len(chain)+1)
	for _, c := range chain {
		names = append(names, ScopeName(c))
	}
	names = append(names, ScopeName(target))
	shown := names
	if len(shown) > 5 {
		shown = append(slices.Clip(names[:4]), "…")
	}
	spec := specifier(t)
	if slices.Contains(chain, target) {
		return fmt.Sprintf("%s %s: cycle %s reaches the depth limit %d", t.Name, spec, strings.Join(shown, " → "), MaxWorkflowDepth)
	}
	return fmt.Sprintf("%s %s: the workflow chain %s would be %d deep, over the depth limit %d",
		t.Name, spec, strings.Join(shown, " → "), len(chain), MaxWorkflowDepth)
}

// specifier is the body of a cross-workflow tag as written.
func specifier(t parsing.Tag) string {
	body := t.Raw
	if i := strings.IndexByte(body, '>'); i >= 0 {
		body = body[i+1:]
	}
	if i := strings.LastIndex(body, "</"); i >= 0 {
		body = body[:i]
	}
	if body = strings.TrimSpace(body); body == "" {
		return t.Target
	}
	return body
}

// ScopeName is the short name of a scope's path (protocol §14): a folder's
// name, or a file's name without its extension and without the SHA-256 that
// pins it (and the - or _ that joins the two).
func ScopeName(p string) string {
	name := path.Base(strings.ReplaceAll(p, "\\", "/"))
	if i := strings.Index(p, "://"); i >= 0 {
		name = path.Base(p[i+3:])
	}
	switch ext := path.Ext(name); ext {
	case ".zip", ".yaml", ".yml":
		name = strings.TrimSuffix(name, ext)
	}
	if i, j := hexRun(name); j-i == 64 {
		name = strings.Trim(name[:i]+name[j:], "-_.")
	}
	if name == "" {
		return "workflow"
	}
	return name
}

// hexRun returns the bounds of the longest run of hex digits in s.
func hexRun(s string) (from, to int) {
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && isHex(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start > to-from {
			from, to = start, i
		}
		start = -1
	}
	return from, to
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// WorkflowLabel names a workflow in messages for people, as
// workflow.Scope.Label does from the scope itself: the pinned URL when url
// is set, else the base name of the folder or file at dir ("review",
// "review.yaml"), and "review/states" for a folder of states kept in
// states/.
func WorkflowLabel(dir, url string) string {
	if url != "" {
		return url
	}
	dir = strings.TrimRight(strings.ReplaceAll(dir, "\\", "/"), "/")
	base := path.Base(dir)
	if base == "states" {
		return path.Base(path.Dir(dir)) + "/" + base
	}
	return base
}

// workflowOf is the label of the workflow r belongs to.
func (m *Machine) workflowOf(r state.Ref) string {
	if r.Scope == "" || r.Scope == m.run.ScopeDir {
		url := r.URL
		if url == "" {
			url = m.run.ScopeURL
		}
		return WorkflowLabel(m.run.ScopeDir, url)
	}
	return WorkflowLabel(r.Scope, r.URL)
}

// scopeLabel names a state of another scope in transitions and progress:
// review/CHECK.md.
func (m *Machine) scopeLabel(r state.Ref) string {
	return ScopeName(m.scopePath(r.Scope)) + "/" + r.State
}

// taskFolder is the task folder the run's pattern gives agent id (protocol
// §16); "" when the run has no pattern (made before task folders).
func (m *Machine) taskFolder(id string) string {
	p := m.run.TaskFolderPattern
	if p == "" {
		return ""
	}
	return TaskFolder(p, m.run.WorkflowID, id)
}

// TaskFolder renders a task folder pattern for one agent of a run.
func TaskFolder(pattern, runID, agentID string) string {
	r := strings.NewReplacer(
		"{{run_id}}", runID, "{{ run_id }}", runID,
		"{{workflow_id}}", runID, "{{ workflow_id }}", runID,
		"{{agent_id}}", agentID, "{{ agent_id }}", agentID)
	return r.Replace(pattern)
}

// newTask gives the agent a fresh task folder when a reset says task="new".
func (m *Machine) newTask(a *state.Agent, t parsing.Tag) {
	if v, _ := t.Attr("task"); v != "new" || m.run.TaskFolderPattern == "" {
		return
	}
	a.TaskSeq++
	a.TaskFolder = m.taskFolder(fmt.Sprintf("%s_task%d", a.ID, a.TaskSeq))
}
