package transcript

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// warnings counts and keeps the warnings of a Writer; it is goroutine-safe.
type warnings struct {
	mu   sync.Mutex
	errs []error
}

func (ws *warnings) warn(err error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.errs = append(ws.errs, err)
}

func (ws *warnings) list() []error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return append([]error(nil), ws.errs...)
}

func TestNilWriter(t *testing.T) {
	var w *Writer
	w.Event(Event{Type: EventRunStarted})
	w.Transition(Transition{Agent: "main", From: "A.md", To: "B.md", Tag: "goto"})
	s := w.Step("main_A_001")
	if s != nil {
		t.Fatalf("a nil Writer's Step = %v, want nil", s)
	}
	s.Prompt("hello")
	s.Line([]byte(`{"type":"system"}`))
	s.Close(Meta{Agent: "main"})
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := w.Dir(); d != "" {
		t.Fatalf("Dir = %q, want empty", d)
	}
}

func TestOpenCreatesFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".raymond", "debug", "run1")
	w := Open(dir, noWarn(t))
	defer w.Close()
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		t.Fatalf("folder after Open: %v", err)
	}
	equal(t, w.Dir(), dir, "Dir")
}

func TestResumeAppends(t *testing.T) {
	dir := t.TempDir()
	t1 := Transition{Time: at(10, 0, 0), Agent: "main", From: "A.md", To: "B.md", Tag: "goto"}
	t2 := Transition{Time: at(10, 5, 0), Agent: "main", From: "B.md", Tag: "result", Payload: ptr("ok")}

	w := Open(dir, noWarn(t))
	w.Event(Event{Type: EventRunStarted})
	w.Transition(t1)
	must(t, w.Close())

	w = Open(dir, noWarn(t))
	w.Event(Event{Type: EventRunResumed})
	w.Transition(t2)
	must(t, w.Close())

	events, err := ReadEvents(filepath.Join(dir, EventsFile))
	must(t, err)
	if len(events) != 2 || events[0].Type != EventRunStarted || events[1].Type != EventRunResumed {
		t.Fatalf("events %+v, want run_started then run_resumed", events)
	}
	equal(t, readFile(t, dir, TransitionsFile), t1.format()+t2.format(), TransitionsFile)
}

// TestResumeAfterTornWrite checks that the record a kill cut in half does not
// spoil the first record of the resumed run.
func TestResumeAfterTornWrite(t *testing.T) {
	dir := t.TempDir()
	first := `{"time":"2026-01-15T14:30:00Z","type":"run_started"}` + "\n"
	torn := `{"time":"2026-01-15T14:31:00Z","type":"step_ended","payload":"` + strings.Repeat("x", 3*tailChunk)
	must(t, os.WriteFile(filepath.Join(dir, EventsFile), []byte(first+torn), 0o644))
	entry := "2026-01-15 14:30:22 [main] START.md -> NEXT.md (goto)\n  session_id: 7c"
	must(t, os.WriteFile(filepath.Join(dir, TransitionsFile), []byte(entry), 0o644))

	w := Open(dir, noWarn(t))
	w.Event(Event{Type: EventRunResumed})
	tr := Transition{Time: at(10, 0, 0), Agent: "main", From: "NEXT.md", To: "END.md", Tag: "goto"}
	w.Transition(tr)
	must(t, w.Close())

	events, err := ReadEvents(filepath.Join(dir, EventsFile))
	must(t, err)
	if len(events) != 2 || events[0].Type != EventRunStarted || events[1].Type != EventRunResumed {
		t.Fatalf("events %+v, want run_started then run_resumed", events)
	}
	equal(t, readFile(t, dir, TransitionsFile), entry+"\n\n"+tr.format(), TransitionsFile)
}

func TestDropTornTail(t *testing.T) {
	long := strings.Repeat("y", 2*tailChunk+7)
	tests := []struct{ in, want string }{
		{"", ""},
		{"a\n", "a\n"},
		{"a\nb", "a\n"},
		{"abc", ""},
		{"\n", "\n"},
		{"a\n" + long, "a\n"},
		{long + "\n" + long, long + "\n"},
		{long, ""},
	}
	for _, tt := range tests {
		equal(t, repair(t, dropTornTail, tt.in), tt.want, fmt.Sprintf("dropTornTail(%.20q…)", tt.in))
	}
}

func TestPadTail(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"x\n\n", "x\n\n"},
		{"x\n", "x\n\n"},
		{"x", "x\n\n"},
		{"\n", "\n\n"},
	}
	for _, tt := range tests {
		equal(t, repair(t, padTail, tt.in), tt.want, fmt.Sprintf("padTail(%q)", tt.in))
	}
}

// repair runs fix on a file holding content, opened as Writer opens it, and
// returns what the file holds after.
func repair(t *testing.T, fix func(*os.File) error, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f")
	must(t, os.WriteFile(path, []byte(content), 0o644))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	must(t, err)
	must(t, fix(f))
	must(t, f.Close())
	b, err := os.ReadFile(path)
	must(t, err)
	return string(b)
}

// TestWarnOnce makes every write fail, from many steps at once, and checks
// that warn hears of it once and that no call panics.
func TestWarnOnce(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	must(t, os.WriteFile(file, nil, 0o644))
	var ws warnings
	w := Open(filepath.Join(file, "run1"), ws.warn) // under a regular file: nothing can be created

	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			s := w.Step(fmt.Sprintf("main_WORK_%03d", i))
			s.Prompt("do it")
			for range 10 {
				s.Line([]byte(`{"type":"assistant"}`))
			}
			s.Close(Meta{Agent: "main"})
		})
	}
	for range 10 {
		w.Event(Event{Type: EventWarning})
		w.Transition(Transition{Agent: "main", From: "A.md", Tag: "result"})
	}
	wg.Wait()
	must(t, w.Close())

	errs := ws.list()
	if len(errs) != 1 {
		t.Fatalf("%d warnings, want 1: %v", len(errs), errs)
	}
	if !errors.Is(errs[0], syscall.ENOTDIR) {
		t.Errorf("warning %v, want one wrapping ENOTDIR", errs[0])
	}
}

// TestRecovers checks that the writer goes on trying after an error, and
// does not warn again.
func TestRecovers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run1")
	var warned atomic.Int32
	w := Open(dir, func(error) { warned.Add(1) })
	defer w.Close()

	must(t, os.Remove(dir))
	must(t, os.WriteFile(dir, nil, 0o644)) // the folder is now a file
	s := w.Step("main_A_001")
	s.Line([]byte("lost"))
	s.Close(Meta{})
	w.Event(Event{Type: EventWarning, Message: "lost"})
	if n := warned.Load(); n != 1 {
		t.Fatalf("%d warnings while the folder is a file, want 1", n)
	}

	must(t, os.Remove(dir))
	s = w.Step("main_B_002")
	s.Line([]byte("kept"))
	s.Close(Meta{Agent: "main"})
	w.Event(Event{Type: EventWarning, Message: "kept"})
	w.Transition(Transition{Agent: "main", From: "B.md", Tag: "result"})
	equal(t, readFile(t, dir, "main_B_002.jsonl"), "kept\n", "step lines")
	events, err := ReadEvents(filepath.Join(dir, EventsFile))
	must(t, err)
	if len(events) != 1 || events[0].Message != "kept" {
		t.Fatalf("events %+v, want the one written after the folder came back", events)
	}
	if n := warned.Load(); n != 1 {
		t.Fatalf("%d warnings in all, want 1", n)
	}
}

// TestWriteError points the files at /dev/full, where opening works and
// every write fails.
func TestWriteError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	tests := []struct {
		file  string
		write func(w *Writer)
	}{
		{EventsFile, func(w *Writer) { w.Event(Event{Type: EventWarning}) }},
		{TransitionsFile, func(w *Writer) { w.Transition(Transition{Agent: "main", Tag: "goto"}) }},
		{"main_A_001.jsonl", func(w *Writer) {
			s := w.Step("main_A_001")
			s.Line([]byte("{}"))
			s.Line([]byte("{}"))
			s.Close(Meta{})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			dir := t.TempDir()
			must(t, os.Symlink("/dev/full", filepath.Join(dir, tt.file)))
			var ws warnings
			w := Open(dir, ws.warn)
			tt.write(w)
			tt.write(w)
			must(t, w.Close())
			errs := ws.list()
			if len(errs) != 1 || !errors.Is(errs[0], syscall.ENOSPC) {
				t.Fatalf("warnings %v, want one ENOSPC", errs)
			}
		})
	}
}

func TestAfterClose(t *testing.T) {
	dir := t.TempDir()
	w := Open(dir, noWarn(t))
	w.Event(Event{Type: EventRunStarted})
	s := w.Step("main_A_001")
	must(t, w.Close())
	must(t, w.Close())

	w.Event(Event{Type: EventRunEnded})
	w.Transition(Transition{Time: time.Now(), Agent: "main", From: "A.md", Tag: "result"})
	s.Line([]byte("still written"))
	s.Close(Meta{Agent: "main"})

	events, err := ReadEvents(filepath.Join(dir, EventsFile))
	must(t, err)
	if len(events) != 1 {
		t.Fatalf("events %+v, want only the one before Close", events)
	}
	if _, err := os.Stat(filepath.Join(dir, TransitionsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("transitions.log after Close: %v, want none", err)
	}
	equal(t, readFile(t, dir, "main_A_001.jsonl"), "still written\n", "step lines")
}
