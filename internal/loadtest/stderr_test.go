package loadtest

import (
	"bufio"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeOutlivesItsStderr: a daemon whose stderr was a pipe that closed
// (a terminal gone, a log collector restarted) goes on and stops cleanly,
// rather than dying of SIGPIPE at its next log line.
func TestServeOutlivesItsStderr(t *testing.T) {
	if testing.Short() {
		t.Skip("builds raymond and runs a daemon")
	}
	raymond, _ := binaries(t)
	p := newProject(t, 0.1)
	cmd := exec.Command(raymond, "serve", "--project", p.dir, "--addr", "127.0.0.1:0", "--log-format", "json")
	cmd.Dir, cmd.Env = p.dir, p.env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "recovered:") {
			break
		}
	}
	// Close our end: the daemon's next write to stderr gets EPIPE.
	stderr.Close()
	go func() { exited <- cmd.Wait() }()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("raymond serve, its stderr closed, ended with %v on SIGTERM, want a clean stop", err)
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("raymond serve did not stop within 30 s of SIGTERM")
	}
}
