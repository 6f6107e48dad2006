package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzCrashAndResume writes events, cuts events.jsonl at any byte as a kill
// might, and checks that ReadEvents returns a prefix of the events without an
// error, and that a resumed run's events read back after it.
func FuzzCrashAndResume(f *testing.F) {
	f.Add("a|b|c", uint(10))
	f.Add("", uint(0))
	f.Add("<goto>X.md</goto>|\n|\"", uint(77))
	f.Add("é\xff|"+strings.Repeat("x", 300), uint(200))
	f.Fuzz(func(t *testing.T, payloads string, at uint) {
		dir := t.TempDir()
		path := filepath.Join(dir, EventsFile)
		w := Open(dir, noWarn(t))
		for i, p := range strings.Split(payloads, "|") {
			w.Event(Event{Time: time.Unix(int64(i), 0), Type: EventStepEnded, Payload: &p, Attempt: i})
		}
		must(t, w.Close())
		all, err := ReadEvents(path)
		must(t, err)

		data, err := os.ReadFile(path)
		must(t, err)
		must(t, os.WriteFile(path, data[:at%uint(len(data)+1)], 0o644))
		cut, err := ReadEvents(path)
		if err != nil {
			t.Fatalf("read the cut file: %v", err)
		}
		if len(cut) > len(all) {
			t.Fatalf("read %d events from the cut file, %d from the whole", len(cut), len(all))
		}
		for i := range cut {
			equal(t, *cut[i].Payload, *all[i].Payload, "payload")
		}

		w = Open(dir, noWarn(t))
		w.Event(Event{Type: EventRunResumed})
		must(t, w.Close())
		resumed, err := ReadEvents(path)
		must(t, err)
		if len(resumed) < len(cut)+1 || resumed[len(resumed)-1].Type != EventRunResumed {
			t.Fatalf("after resume: %d events ending in %+v, want %d then run_resumed",
				len(resumed), resumed[len(resumed)-1], len(cut))
		}
	})
}
