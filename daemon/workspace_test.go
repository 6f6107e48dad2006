package daemon

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"raymond/orchestrator"
	"raymond/script"
	"raymond/workspace"
)

// TestLaunchWorktreeRefused: a workflow whose manifest asks for worktrees,
// in a project that is not a git repository, is refused as a conflict (the
// checkout's to fix), and no run is made.
func TestLaunchWorktreeRefused(t *testing.T) {
	p, wf, r := testProject(t, twoSteps, twoStepReplies)
	require.NoError(t, os.WriteFile(filepath.Join(wf, "workflow.yaml"), []byte("workspace: worktree\n"), 0o644))
	d, err := Open(Config{Project: p, Runner: r, Scripts: r.Scripts(&script.Runner{}), Clock: &orchestrator.InstantClock{},
		Workspaces: workspace.Worktrees{}})
	require.NoError(t, err)
	t.Cleanup(func() {
		d.Shutdown(context.Background())
		d.Close()
	})
	_, err = d.Launch(Launch{Workflow: wf})
	require.ErrorIs(t, err, ErrConflict)
	require.ErrorContains(t, err, "needs a git repository")
	runs, err := p.Runs()
	require.NoError(t, err)
	require.Empty(t, runs)
}
