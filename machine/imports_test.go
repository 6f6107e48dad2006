package machine

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestImports holds the dependency rules of docs/architecture.md: the
// machine touches nothing outside the process (so it can run unchanged as
// deterministic workflow code), and neither the machine nor the local
// driver knows which runner runs a step or how processes and networks work.
func TestImports(t *testing.T) {
	forbidden := map[string][]string{
		"raymond/machine":      {"os", "os/exec", "os/signal", "net", "net/http", "syscall", "raymond/claude", "raymond/scripted", "raymond/workflow", "raymond/orchestrator"},
		"raymond/orchestrator": {"os/exec", "net", "net/http", "raymond/claude", "raymond/scripted"},
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, pkg).Output()
		require.NoError(t, err, "go list %s", pkg)
		imports := strings.Fields(string(out))
		require.NotEmpty(t, imports, pkg)
		for _, b := range bad {
			if slices.Contains(imports, b) {
				t.Errorf("%s imports %s", pkg, b)
			}
		}
	}
}

// TestNoClock checks that the machine reads no clock: times come in with
// its events.
func TestNoClock(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, call := range []string{"time.Now(", "time.Since(", "time.Until(", "time.After(", "time.Sleep(", "time.NewTimer(", "time.Tick("} {
			if strings.Contains(string(src), call) {
				t.Errorf("%s calls %s", f, call)
			}
		}
	}
}
