package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"raymond/state"
)

// lastRun is the run id that stands for the project's newest run.
const lastRun = "last"

// resolveRunID turns what the user typed for a run id into the run's id:
// an existing run's id as it is, "last" for the newest run, or a prefix
// that only one run's id starts with. An ambiguous prefix is a usage error
// listing the runs it matches. Anything else comes back unchanged, for the
// caller to report as it reports a run that does not exist.
func resolveRunID(store *state.Store, arg string) (string, error) {
	if state.ValidID(arg) != nil {
		return arg, nil
	}
	if _, err := os.Stat(store.Path(arg)); err == nil {
		return arg, nil
	}
	if arg == lastRun {
		runs, err := store.List()
		if len(runs) == 0 {
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", err
			}
			// No run yet (not even a .raymond/state folder): say so, not
			// "open …/.raymond/state: no such file or directory".
			return "", &usageError{
				msg:  fmt.Sprintf("no runs in the project at %s, so no last run", filepath.Dir(filepath.Dir(store.Dir))),
				hint: "Start one with 'raymond run WORKFLOW', or give --project DIR for another project.",
			}
		}
		return runs[0].WorkflowID, nil
	}
	ids, err := runIDs(store)
	if err != nil {
		return "", err
	}
	var matches []string
	for _, id := range ids {
		if strings.HasPrefix(id, arg) {
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 0:
		return arg, nil
	case 1:
		return matches[0], nil
	}
	return "", &usageError{
		msg:  fmt.Sprintf("%q is the start of %d run ids: %s", arg, len(matches), strings.Join(matches, ", ")),
		hint: "Give more of the id, or 'last' for the newest run.",
	}
}

// runIDs returns the ids of the runs in store, sorted, from the names of
// their state files: no state file is read.
func runIDs(store *state.Store) ([]string, error) {
	entries, err := os.ReadDir(store.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var ids []string
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), ".json"); ok && !e.IsDir() && state.ValidID(id) == nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}
