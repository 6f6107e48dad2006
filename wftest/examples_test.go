package wftest_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"raymond/wftest"
)

// workflowsDir is the folder of the workflows that ship with raymond.
func workflowsDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "workflows"))
	require.NoError(t, err)
	return dir
}

// bundled lists the demo and every example that starts at START.md: those
// TestBrokenExamplesFail breaks by deleting and retargeting their .md states.
func bundled(t *testing.T) []string {
	t.Helper()
	root := workflowsDir(t)
	examples, err := filepath.Glob(filepath.Join(root, "examples", "*", "START.md"))
	require.NoError(t, err)
	dirs := []string{filepath.Join(root, "demo")}
	for _, e := range examples {
		dirs = append(dirs, filepath.Dir(e))
	}
	require.GreaterOrEqual(t, len(dirs), 7, "the demo and six examples")
	return dirs
}

// exampleFolders lists every folder of workflows/examples, whatever its
// workflow starts with (START.md, 1_START.md, START.sh, a YAML file).
func exampleFolders(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(workflowsDir(t), "examples"))
	require.NoError(t, err)
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(workflowsDir(t), "examples", e.Name()))
		}
	}
	require.GreaterOrEqual(t, len(dirs), 11, "the six examples of the tags and five of scripts, YAML, zips, cross-workflow forks and asks")
	return dirs
}

// failureText joins a case's failures for a test's log.
func failureText(r *wftest.CaseResult) string {
	return strings.Join(r.Failures, "\n")
}

// TestExamples runs every test file under workflows/ and requires each of
// its cases to pass. Every bundled workflow must carry a test file named
// after its folder, with several cases, one of which pins down the exact
// result and the path of every agent.
func TestExamples(t *testing.T) {
	files, err := wftest.Discover([]string{workflowsDir(t)})
	require.NoError(t, err)
	shipped := []string{filepath.Join(workflowsDir(t), "rpi")}
	for _, w := range []string{"plan", "impl", "archive"} {
		shipped = append(shipped, filepath.Join(workflowsDir(t), "agentd", w))
	}
	for _, dir := range slices.Concat(bundled(t), exampleFolders(t), shipped) {
		assert.Contains(t, files, filepath.Join(dir, filepath.Base(dir)+wftest.TestFileSuffix),
			"every bundled workflow carries a test file")
	}
	for _, path := range files {
		name, err := filepath.Rel(workflowsDir(t), path)
		require.NoError(t, err)
		t.Run(name, func(t *testing.T) {
			f, err := wftest.Load(path)
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(f.Cases), 2, "the run of replies.yaml and another branch")
			exact := false
			for _, c := range f.Cases {
				exact = exact || c.Expect.Result != nil && c.Expect.Paths != nil
				t.Run(c.Name, func(t *testing.T) {
					t.Parallel()
					r := f.RunCase(context.Background(), c, 0)
					if !r.Passed() {
						t.Errorf("%s:%d: %s failed:\n%s", path, r.Line, r.ID, failureText(r))
					}
				})
			}
			assert.True(t, exact, "no case expects an exact result and every agent's path")
		})
	}
}

// TestExamplesCopied runs the test file of every example from a copy of its
// folder in a temporary folder: an example relies on nothing outside its
// own folder (a sub-workflow, a zip, a relative cwd all live in it).
func TestExamplesCopied(t *testing.T) {
	for _, dir := range exampleFolders(t) {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f, err := wftest.Load(filepath.Join(copyWorkflow(t, dir), name+wftest.TestFileSuffix))
			require.NoError(t, err)
			for _, r := range runCases(f) {
				assert.True(t, r.Passed(), "%s:\n%s", r.ID, failureText(r))
			}
		})
	}
}

// retarget is an edit that sends one transition of a workflow elsewhere:
// every mention of from in file, in its instructions and in its
// allowed_transitions alike, becomes to, another state of the workflow.
type retarget struct {
	file, from, to string
}

// retargets are the edits TestBrokenExamplesFail makes, one per workflow.
// In a test the scripted replies choose the tags, so editing only the tag
// a prompt's instructions ask for would change nothing; what a workflow
// author really does is redirect a transition in the prompt and in its
// policy together. A reply that still names the old target is then refused
// (reminders, then replies run out), and an implicit transition, which no
// reply chooses, silently goes to the new target: either way the path
// differs from the one the test expects.
var retargets = map[string]retarget{
	// The survey's result goes straight to the report, skipping the
	// reviews (START's call is implicit: the path changes by itself).
	"demo": {"START.md", "PLAN.md", "REPORT.md"},
	// A finished loop goes back to START instead of summarising.
	"goto-loop": {"FIX.md", "SUMMARY.md", "START.md"},
	// Research goes straight to the implementation, skipping the plan.
	"reset-phases": {"START.md", "PLAN.md", "IMPLEMENT.md"},
	// The writer is called directly instead of the gathering subroutine.
	"call-return": {"START.md", "GATHER.md", "WRITE.md"},
	// A revision's verdict goes to DONE without a decision.
	"function-evaluator": {"REVISE.md", "DECIDE.md", "DONE.md"},
	// The parent goes straight to the overview, without waiting for the
	// workers' summaries.
	"fork-join": {"START.md", "WAIT", "JOIN.md"},
	// The reproduced bug goes to verification without a fix (REPRODUCE's
	// goto is implicit).
	"policy-implicit": {"REPRODUCE.md", "FIX.md", "VERIFY.md"},
}

// TestBrokenExamplesFail proves that the bundled test files catch a broken
// workflow. Each workflow is copied, with its test file, and broken the two
// ways an author might: a state its first case reaches is deleted, and a
// transition is sent elsewhere (see retargets). The copied test file must
// then fail, saying where the path went differently.
func TestBrokenExamplesFail(t *testing.T) {
	for _, dir := range bundled(t) {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testFile := filepath.Join(dir, name+wftest.TestFileSuffix)
			orig, err := wftest.Load(testFile)
			require.NoError(t, err)
			t.Run("unbroken copy passes", func(t *testing.T) {
				f := loadCopy(t, copyWorkflow(t, dir), name, orig.Cwd)
				for _, r := range runCases(f) {
					assert.True(t, r.Passed(), "%s:\n%s", r.ID, failureText(r))
				}
			})
			states := reached(orig.Cases[0])
			require.NotEmpty(t, states, "the first case of %s expects no path beyond the entry", testFile)
			for _, s := range states {
				t.Run("without "+s, func(t *testing.T) {
					copied := copyWorkflow(t, dir)
					require.NoError(t, os.Remove(filepath.Join(copied, s+".md")))
					copiedTest := filepath.Join(copied, name+wftest.TestFileSuffix)
					// The replies still name the state: the file no longer loads.
					_, err := wftest.Load(copiedTest)
					require.Error(t, err)
					assert.Contains(t, err.Error(), s)
					// Without those replies it loads, and the runs go wrong.
					dropState(t, copiedTest, s)
					requireBroken(t, loadCopy(t, copied, name, orig.Cwd), s)
				})
			}
			e, ok := retargets[name]
			require.True(t, ok, "no retarget edit for %s", name)
			t.Run("retarget "+e.file, func(t *testing.T) {
				copied := copyWorkflow(t, dir)
				e.apply(t, copied)
				requireBroken(t, loadCopy(t, copied, name, orig.Cwd), stem(e.from))
			})
		})
	}
}

// apply makes the edit in the workflow folder dir, and checks that it
// changed the state's policy, not only its text.
func (e retarget) apply(t *testing.T, dir string) {
	t.Helper()
	path := filepath.Join(dir, e.file)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, e.to))
	require.NoError(t, err, "the new target must be a state of the workflow")
	before := string(data)
	require.True(t, strings.HasPrefix(before, "---\n"), "%s has no frontmatter", e.file)
	after := strings.ReplaceAll(before, e.from, e.to)
	front := func(s string) string { return strings.SplitN(s, "---", 3)[1] }
	require.NotEqual(t, front(before), front(after), "%s: the edit leaves allowed_transitions as they were", e.file)
	require.NoError(t, os.WriteFile(path, []byte(after), 0o644))
}

// copyWorkflow copies the files of the workflow folder dir into a temporary
// folder and returns the copy.
func copyWorkflow(t *testing.T, dir string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(dir))
	require.NoError(t, os.CopyFS(dst, os.DirFS(dir)))
	return dst
}

// loadCopy loads the test file of a copied workflow. Its agents work where
// the original's do: the copy's relative cwd would point elsewhere.
func loadCopy(t *testing.T, dir, name, cwd string) *wftest.File {
	t.Helper()
	f, err := wftest.Load(filepath.Join(dir, name+wftest.TestFileSuffix))
	require.NoError(t, err)
	f.Cwd = cwd
	return f
}

// runCases runs every case of f, one after the other; the results are in
// the order of f.Cases.
func runCases(f *wftest.File) []*wftest.CaseResult {
	var results []*wftest.CaseResult
	for _, c := range f.Cases {
		results = append(results, f.RunCase(context.Background(), c, 0))
	}
	return results
}

// requireBroken runs the cases of f and requires that one of them failed
// with a wrong path for an agent that should have gone through state: the
// workflow no longer goes where the test expects. The failure shows the
// path diff (or that the agent never started), which is what the author
// reads.
func requireBroken(t *testing.T, f *wftest.File, state string) {
	t.Helper()
	var all []string
	found := false
	for i, r := range runCases(f) {
		if r.Passed() {
			continue
		}
		all = append(all, r.ID+":\n"+failureText(r))
		for _, msg := range r.Failures {
			found = found || isPathFailure(msg, f.Cases[i].Expect.Paths, state)
		}
	}
	require.NotEmpty(t, all, "every case still passes")
	assert.True(t, found, "no case fails on the path of an agent expected to go through %s:\n%s", state, strings.Join(all, "\n"))
	t.Logf("what the author sees first:\n%s", all[0])
}

// isPathFailure reports whether msg says that the path of an agent
// expected to go through state is not what paths expect.
func isPathFailure(msg string, paths []wftest.AgentStates, state string) bool {
	for _, p := range paths {
		if !strings.HasPrefix(msg, "path of "+p.Agent+" ") && !strings.HasPrefix(msg, "path of "+p.Agent+":") {
			continue
		}
		for _, s := range p.States {
			if stem(s) == state || strings.TrimSuffix(s, ".sh") == state {
				return true
			}
		}
	}
	return false
}

// reached lists the states c's expected paths go through, main's first
// state (the entry) and script states left out, each once, without .md.
func reached(c *wftest.Case) []string {
	var states []string
	seen := make(map[string]bool)
	for _, p := range c.Expect.Paths {
		for j, s := range p.States {
			s = stem(s)
			// Script states are not prompts: only the .md states are deleted.
			if p.Agent == "main" && j == 0 || seen[s] || strings.HasSuffix(s, ".sh") {
				continue
			}
			seen[s] = true
			states = append(states, s)
		}
	}
	return states
}

// stem is a state's name without .md.
func stem(state string) string { return strings.TrimSuffix(state, ".md") }

// dropState removes from the test file at path every reply for state (the
// shared queue and the agents' own) and every mention of it in unvisited,
// as an author would after deleting the state.
func dropState(t *testing.T, path, state string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal(data, &doc))
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value != "cases" {
			continue
		}
		for _, c := range top.Content[i+1].Content {
			for j := 0; j+1 < len(c.Content); j += 2 {
				switch c.Content[j].Value {
				case "replies":
					dropKeys(c.Content[j+1], state)
				case "expect":
					dropUnvisited(c.Content[j+1], state)
				}
			}
		}
	}
	out, err := yaml.Marshal(&doc)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, out, 0o644))
}

// dropKeys returns replies without the keys for state: STATE, STATE.md and
// AGENT/STATE.
func dropKeys(replies *yaml.Node, state string) {
	var kept []*yaml.Node
	for i := 0; i+1 < len(replies.Content); i += 2 {
		key := replies.Content[i].Value
		if i := strings.LastIndex(key, "/"); i >= 0 {
			key = key[i+1:]
		}
		if stem(key) != state {
			kept = append(kept, replies.Content[i], replies.Content[i+1])
		}
	}
	replies.Content = kept
}

// dropUnvisited removes state from the unvisited list of expect.
func dropUnvisited(expect *yaml.Node, state string) {
	for i := 0; i+1 < len(expect.Content); i += 2 {
		if expect.Content[i].Value != "unvisited" {
			continue
		}
		list := expect.Content[i+1]
		var kept []*yaml.Node
		for _, s := range list.Content {
			if stem(s.Value) != state {
				kept = append(kept, s)
			}
		}
		list.Content = kept
	}
}
