//go:build unix

// Package chromium opens HTML pages in headless Chromium for tests: it
// finds the browser (skipping the test without it, unless
// RAYMOND_REQUIRE_CHROMIUM=1), adds a probe that records script errors and
// a page's own measuring script, and reads what they recorded from the
// DOM after scripts ran.
package chromium

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Timeout bounds one run of chromium.
const Timeout = 60 * time.Second

// errorProbe goes first in <head>: it records every script error,
// unhandled rejection and console.error in an attribute of <html>, where
// the dumped DOM shows it even if the page breaks later.
const errorProbe = `<script>
(function () {
  var errors = [];
  function record(msg) {
    errors.push(String(msg));
    document.documentElement.setAttribute("data-script-errors", JSON.stringify(errors));
  }
  window.addEventListener("error", function (e) {
    record("error: " + e.message + " at " + (e.filename || "?") + ":" + e.lineno);
  });
  window.addEventListener("unhandledrejection", function (e) {
    record("unhandled rejection: " + e.reason);
  });
  var consoleError = console.error;
  console.error = function () {
    record("console.error: " + Array.prototype.join.call(arguments, " "));
    return consoleError.apply(console, arguments);
  };
  document.documentElement.setAttribute("data-script-errors", "[]");
})();
</script>`

// Binary finds chromium, or skips the test (fails it when
// RAYMOND_REQUIRE_CHROMIUM=1).
func Binary(t testing.TB) string {
	t.Helper()
	if testing.Short() && os.Getenv("RAYMOND_REQUIRE_CHROMIUM") != "1" {
		t.Skip("-short: not starting chromium")
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	const msg = "chromium is not installed (Debian: apt-get install chromium); the HTML page is not rendered"
	if os.Getenv("RAYMOND_REQUIRE_CHROMIUM") == "1" {
		t.Fatal(msg + ", and RAYMOND_REQUIRE_CHROMIUM=1 requires it")
	}
	t.Skip(msg)
	return ""
}

// Probed writes page into dir as name with the error probe first in its
// <head> and measure (a <script> that sets the attribute data-measure of
// <html> to JSON) last in its <body>, and returns the file.
func Probed(t testing.TB, dir, name, page, measure string) string {
	t.Helper()
	head := `<meta charset="utf-8">`
	require.Contains(t, page, head)
	require.Contains(t, page, "</body>")
	page = strings.Replace(page, head, head+"\n"+errorProbe, 1)
	i := strings.LastIndex(page, "</body>")
	page = page[:i] + measure + "\n" + page[i:]
	file := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(file, []byte(page), 0o644))
	return file
}

var (
	errorsAttr  = regexp.MustCompile(`data-script-errors="([^"]*)"`)
	measureAttr = regexp.MustCompile(`data-measure="([^"]*)"`)
)

// DOM loads file (written by Probed) and returns the script errors, and
// decodes what the measuring script recorded into m.
func DOM(t testing.TB, bin, file string, m any) []string {
	t.Helper()
	dom := Run(t, bin, "--dump-dom", "--virtual-time-budget=2000", URL(file))
	var errs []string
	em := errorsAttr.FindStringSubmatch(dom)
	require.NotNil(t, em, "the error probe did not run; the DOM starts: %.300s", dom)
	require.NoError(t, json.Unmarshal([]byte(html.UnescapeString(em[1])), &errs))
	mm := measureAttr.FindStringSubmatch(dom)
	require.NotNil(t, mm, "the measuring script did not run; script errors: %q", errs)
	require.NoError(t, json.Unmarshal([]byte(html.UnescapeString(mm[1])), m))
	return errs
}

// URL is the file: URL of file.
func URL(file string) string { return "file://" + file }

// Run runs chromium headless with args and returns its stdout. It has its
// own profile, runs in its own process group, and is killed with its
// children when it takes longer than Timeout.
func Run(t testing.TB, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	flags := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(),
	}
	cmd := exec.CommandContext(ctx, bin, append(flags, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		// Whatever chromium left behind (zygote, renderers) goes with it.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("chromium did not finish within %s and was killed; stderr:\n%s", Timeout, tail(stderr.String()))
	}
	require.NoError(t, err, "chromium failed; stderr:\n%s", tail(stderr.String()))
	return stdout.String()
}

// tail is the end of chromium's stderr, which is mostly noise.
func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-15):], "\n")
}
