package project

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"raymond/machine"
	"raymond/state"
)

// Ended reports whether a run with status s can go no further by itself:
// raymond rm --finished and a daemon's DELETE remove only those.
func Ended(s state.Status) bool {
	switch s {
	case state.StatusCompleted, state.StatusFailed, state.StatusBudgetExceeded:
		return true
	}
	return false
}

// RemoveRun removes run r of project p: its state file first (refused when
// a process drives it), then its transcript and task folders.
func RemoveRun(p *Project, r *state.Run) error {
	id := r.WorkflowID
	if err := p.Store.Remove(id); err != nil {
		return err
	}
	// <id>.steps holds the output of its steps when it has no transcript.
	dirs := []string{filepath.Join(DebugDir(p.Dir), id), filepath.Join(p.Store.Dir, id+".steps")}
	dirs = append(dirs, taskFolders(r)...)
	for _, d := range dirs {
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("remove run %s: %w", id, err)
		}
	}
	return nil
}

// RunFiles lists what RemoveRun removes of run r that exists: its state
// file, its transcript folder and its task folders.
func RunFiles(p *Project, r *state.Run) []string {
	files := []string{p.Store.Path(r.WorkflowID)}
	for _, d := range append([]string{filepath.Join(DebugDir(p.Dir), r.WorkflowID)}, taskFolders(r)...) {
		if _, err := os.Stat(d); err == nil {
			files = append(files, d)
		}
	}
	return files
}

// taskFolders returns the task folders of run r's agents: the folder of the
// run itself when its pattern gives each run one (the default,
// .raymond/tasks/{{run_id}}/{{agent_id}}), else each folder an agent or a
// frame of its stack records.
func taskFolders(r *state.Run) []string {
	if r.TaskFolderPattern == "" {
		return nil
	}
	const agent = "\x00agent\x00"
	rendered := machine.TaskFolder(r.TaskFolderPattern, r.WorkflowID, agent)
	if i := strings.Index(rendered, agent); i >= 0 {
		runDir := filepath.Dir(rendered[:i] + "x")
		if strings.Contains(filepath.Base(runDir), r.WorkflowID) {
			return []string{runDir}
		}
	}
	var dirs []string
	for _, a := range r.Agents {
		if a.TaskFolder != "" {
			dirs = append(dirs, a.TaskFolder)
		}
		for _, f := range a.Stack {
			if f.TaskFolder != "" {
				dirs = append(dirs, f.TaskFolder)
			}
		}
	}
	return dirs
}
