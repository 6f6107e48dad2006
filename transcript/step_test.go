package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"raymond/claude"
)

func TestStepFiles(t *testing.T) {
	dir := t.TempDir()
	w := Open(dir, noWarn(t))
	defer w.Close()

	s := w.Step("main_START_001")
	equal(t, readFile(t, dir, "main_START_001.jsonl"), "", "lines before the first one")
	prompt := "Do the <thing>.\n\nThen <goto>NEXT.md</goto>"
	s.Prompt(prompt)
	raw := []byte(`{"type":"system","subtype":"init"}`)
	s.Line(raw)
	copy(raw, "XXXXXXXX") // the caller reuses its buffer
	s.Line([]byte(`{"type":"result","result":"<goto>NEXT.md</goto>"}`))
	s.Line(nil)
	started := time.Date(2026, 1, 15, 14, 30, 0, 0, time.UTC)
	meta := Meta{
		Agent: "main", State: "START.md", Seq: 1, Attempt: 1,
		Argv: []string{"claude", "-p", "<goto>"}, Cwd: "/work", SessionMode: "new", SessionID: "7c0e",
		Started: started, Ended: started.Add(1500 * time.Millisecond), DurationMS: 1500,
		Outcome: claude.Success.String(), CostUSD: 0.05, TotalCostUSD: 0.05,
		Usage: claude.Usage{InputTokens: 3, OutputTokens: 4}, NumTurns: 1, Runner: "claude",
	}
	s.Close(meta)

	equal(t, readFile(t, dir, "main_START_001.prompt.md"), prompt, "prompt")
	equal(t, readFile(t, dir, "main_START_001.jsonl"),
		`{"type":"system","subtype":"init"}`+"\n"+`{"type":"result","result":"<goto>NEXT.md</goto>"}`+"\n\n",
		"lines")

	text := readFile(t, dir, "main_START_001.meta.json")
	for _, want := range []string{"{\n  \"agent\": \"main\",\n", `"<goto>"`, `"input_tokens": 3`, `"outcome": "success"`} {
		if !strings.Contains(text, want) {
			t.Errorf("meta.json lacks %q:\n%s", want, text)
		}
	}
	for _, absent := range []string{"reminder", "resumed_session", "signal", "stderr_tail"} {
		if strings.Contains(text, absent) {
			t.Errorf("meta.json has empty %q:\n%s", absent, text)
		}
	}
	var got Meta
	must(t, json.Unmarshal([]byte(text), &got))
	equal(t, got, meta, "meta")

	entries, err := os.ReadDir(dir)
	must(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		if info, err := e.Info(); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600 (issue 9, item 18)", e.Name(), info.Mode())
		}
	}
	equal(t, names, []string{"main_START_001.jsonl", "main_START_001.meta.json", "main_START_001.prompt.md"}, "files")
}

func TestStepRewritesExistingFiles(t *testing.T) {
	dir := t.TempDir()
	for _, suffix := range []string{promptSuffix, linesSuffix, metaSuffix} {
		must(t, os.WriteFile(filepath.Join(dir, "main_A_001"+suffix), []byte(strings.Repeat("old ", 100)), 0o644))
	}
	w := Open(dir, noWarn(t))
	defer w.Close()
	s := w.Step("main_A_001")
	s.Prompt("new")
	s.Line([]byte("{}"))
	s.Close(Meta{Agent: "main"})
	s.Line([]byte("after close"))

	equal(t, readFile(t, dir, "main_A_001.prompt.md"), "new", "prompt")
	equal(t, readFile(t, dir, "main_A_001.jsonl"), "{}\n", "lines")
	if m := readFile(t, dir, "main_A_001.meta.json"); strings.Contains(m, "old") {
		t.Errorf("meta.json kept the old content: %s", m)
	}
}

func TestStepBadName(t *testing.T) {
	for _, name := range []string{"", ".", "..", "../escape_001", `a\b_001`, "sub/A_001"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			var ws warnings
			w := Open(filepath.Join(dir, "run"), ws.warn)
			defer w.Close()
			s := w.Step(name)
			s.Prompt("p")
			s.Line([]byte("l"))
			s.Close(Meta{})
			if s != nil || len(ws.list()) != 1 {
				t.Fatalf("Step(%q) = %v with warnings %v, want nil and one warning", name, s, ws.list())
			}
			entries, err := os.ReadDir(dir)
			must(t, err)
			if len(entries) != 1 {
				t.Fatalf("files beside the folder: %v", entries)
			}
		})
	}
}

func TestStepHugeLine(t *testing.T) {
	dir := t.TempDir()
	w := Open(dir, noWarn(t))
	defer w.Close()
	s := w.Step("main_A_001")
	huge := strings.Repeat("z", 3*maxKeptBuffer)
	s.Line([]byte(huge))
	if s.buf != nil {
		t.Errorf("kept a %d-byte buffer after a huge line", cap(s.buf))
	}
	s.Line([]byte("small"))
	s.Close(Meta{})
	equal(t, readFile(t, dir, "main_A_001.jsonl"), huge+"\nsmall\n", "lines")
}

// TestConcurrentSteps runs many steps at once with the loop writing events,
// for the race detector, and checks that no line got lost or mixed up.
func TestConcurrentSteps(t *testing.T) {
	const steps, lines = 8, 200
	dir := t.TempDir()
	w := Open(dir, noWarn(t))

	var wg sync.WaitGroup
	for i := range steps {
		wg.Go(func() {
			s := w.Step(fmt.Sprintf("agent%d_WORK_001", i))
			s.Prompt(fmt.Sprintf("prompt %d", i))
			for j := range lines {
				s.Line(fmt.Appendf(nil, `{"agent":%d,"line":%d}`, i, j))
			}
			s.Close(Meta{Agent: fmt.Sprintf("agent%d", i), Seq: 1})
		})
	}
	for i := range lines {
		w.Event(Event{Type: EventStepStarted, Attempt: i + 1})
		w.Transition(Transition{Agent: "main", From: "A.md", To: "A.md", Tag: "goto"})
	}
	wg.Wait()
	must(t, w.Close())

	for i := range steps {
		var want strings.Builder
		for j := range lines {
			fmt.Fprintf(&want, `{"agent":%d,"line":%d}`+"\n", i, j)
		}
		equal(t, readFile(t, dir, fmt.Sprintf("agent%d_WORK_001.jsonl", i)), want.String(), "lines")
	}
	events, err := ReadEvents(filepath.Join(dir, EventsFile))
	must(t, err)
	if len(events) != lines {
		t.Fatalf("%d events, want %d", len(events), lines)
	}
}

// TestStepOutput: a script step's streams go to their own files as they
// arrive, from two goroutines at once, and its meta records what raymond
// added to its environment and its timeout.
func TestStepOutput(t *testing.T) {
	dir := t.TempDir()
	w := Open(dir, noWarn(t))
	defer w.Close()
	s := w.Step("main_POLL_001")
	var wg sync.WaitGroup
	for _, stderr := range []bool{false, true} {
		wg.Go(func() {
			for i := range 100 {
				s.Output(stderr, fmt.Appendf(nil, "%v %d\n", stderr, i))
			}
		})
	}
	wg.Wait()
	meta := Meta{Agent: "main", State: "POLL.sh", Seq: 1, Attempt: 1, Argv: []string{"/bin/bash", "/w/POLL.sh"},
		Outcome: "success", Runner: "script",
		Env: map[string]string{"RAYMOND_RUN_ID": "r1", "item": "a"}, Timeout: "10m", TimeoutFrom: "--timeout"}
	s.Close(meta)
	s.Output(false, []byte("after close\n"))
	for _, stderr := range []bool{false, true} {
		var want strings.Builder
		for i := range 100 {
			fmt.Fprintf(&want, "%v %d\n", stderr, i)
		}
		name := "main_POLL_001.stdout.txt"
		if stderr {
			name = "main_POLL_001.stderr.txt"
		}
		equal(t, readFile(t, dir, name), want.String(), name)
	}
	var got Meta
	must(t, json.Unmarshal([]byte(readFile(t, dir, "main_POLL_001.meta.json")), &got))
	equal(t, got, meta, "meta")

	// A step that wrote nothing on a stream has no file for it.
	s = w.Step("main_POLL_002")
	s.Output(true, []byte("only stderr\n"))
	s.Close(Meta{})
	if _, err := os.Stat(filepath.Join(dir, "main_POLL_002.stdout.txt")); !os.IsNotExist(err) {
		t.Errorf("stdout file of a silent stdout: %v", err)
	}
}
