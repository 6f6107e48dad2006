package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/scripted"
	"raymond/state"
	"raymond/workflow"
)

// inputLine finds the --input a workflow's replies.yaml says to run it with.
var inputLine = regexp.MustCompile(`(?m)^#\s+--input "([^"]*)"`)

// expected reads the "Expected result of the run:" comment of a replies file:
// the lines after it that start with "#   ", without that prefix, a line
// "#" standing for a blank one.
func expected(replies string) string {
	_, after, ok := strings.Cut(replies, "# Expected result of the run:\n")
	if !ok {
		return ""
	}
	var lines []string
	for line := range strings.Lines(after) {
		line = strings.TrimRight(line, "\n")
		if line == "#" { // a blank line of the result
			lines = append(lines, "")
			continue
		}
		rest, ok := strings.CutPrefix(line, "#   ")
		if !ok {
			break
		}
		lines = append(lines, rest)
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// TestBundledWorkflows runs every workflow that ships in workflows/ with its
// replies file, as `make demo` does: each completes, uses every reply, and
// ends with the result its replies file announces.
func TestBundledWorkflows(t *testing.T) {
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	dirs, err := filepath.Glob(filepath.Join(root, "workflows", "examples", "*", "replies.yaml"))
	require.NoError(t, err)
	dirs = append(dirs, filepath.Join(root, "workflows", "demo", "replies.yaml"))
	require.GreaterOrEqual(t, len(dirs), 7)
	// Agents work where raymond runs; fork-join's workers study the
	// repository's own folders.
	t.Chdir(root)
	for _, repliesPath := range dirs {
		wf := filepath.Dir(repliesPath)
		t.Run(filepath.Base(wf), func(t *testing.T) {
			if why := needsMore(t, wf); why != "" {
				t.Skipf("%s, which this test's driver does not run; wftest's TestExamples runs it", why)
			}
			data, err := os.ReadFile(repliesPath)
			require.NoError(t, err)
			runner, err := scripted.Parse(repliesPath, data)
			require.NoError(t, err)
			scope, err := workflow.OpenDir(wf)
			require.NoError(t, err)
			defer scope.Close()
			require.NoError(t, runner.Check(scope))
			opts := state.Options{Debug: true}
			if m := inputLine.FindSubmatch(data); m != nil {
				in := string(m[1])
				opts.Input = &in
			}
			w := &world{dir: t.TempDir(), wf: wf}
			w.store, err = state.Open(filepath.Join(w.dir, ".raymond", "state"))
			require.NoError(t, err)
			w.create(t, "r1", opts, 0)
			// The replies' delays pass in no time inside the bubble.
			synctest.Test(t, func(t *testing.T) {
				run, err := w.driver(runner).Drive(context.Background(), "r1", nil)
				require.NoError(t, err)
				require.Equal(t, state.StatusCompleted, run.Status, "%s\n%s", run.Error, w.out.String())
				assert.Empty(t, runner.Unused(), "replies no step used")
				if want := expected(string(data)); want != "" {
					assert.Equal(t, want, strings.TrimSpace(*run.Result))
				}
			})
		})
	}
}

// needsMore says why the workflow in the folder dir needs more than a
// driver with scripted replies for prompts: a script state (a .sh file, or
// a zip, whose scripts may run), a YAML workflow, or an ask someone must
// answer. It returns "" for a workflow this test can run.
func needsMore(t *testing.T, dir string) string {
	t.Helper()
	var why string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		name := d.Name()
		switch {
		case err != nil:
			return err
		case strings.HasSuffix(name, ".sh"), strings.HasSuffix(name, ".zip"):
			why = "script states"
		case strings.HasSuffix(name, ".yaml") && name != "replies.yaml" && !strings.HasSuffix(name, ".test.yaml"):
			why = "a YAML workflow"
		case strings.HasSuffix(name, ".md"):
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if strings.Contains(string(data), "<ask ") {
				why = "an ask"
			}
		}
		if why != "" {
			return filepath.SkipAll
		}
		return nil
	})
	require.NoError(t, err)
	return why
}
