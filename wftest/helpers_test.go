package wftest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// write writes files (name → content) under dir, making folders as needed.
func write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	}
}

// loopWorkflow is a workflow with a loop, a call and a state never reached
// on the happy path.
var loopWorkflow = map[string]string{
	"wf/START.md":   "Find the failing tests in {{input}}. <goto>FIX.md</goto>",
	"wf/FIX.md":     "Fix one. Again: <goto>FIX.md</goto>; done: <goto>SUMMARY.md</goto>; stuck: <goto>GIVE_UP.md</goto>",
	"wf/SUMMARY.md": "Sum up. <result>…</result>",
	"wf/GIVE_UP.md": "Say why. <result>…</result>",
}

// fanWorkflow forks one worker per item and joins.
var fanWorkflow = map[string]string{
	"fan/START.md":  "Fork the workers.",
	"fan/WORKER.md": "Work on {{item}}.",
	"fan/JOIN.md":   "Join.",
}
