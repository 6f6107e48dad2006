package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name    string
		file    string // content of x.json; "" means no file
		id      string // run to read; "x" when empty
		want    []string
		notFind bool // errors.Is(err, ErrNotFound)
	}{
		{
			name: "newer version",
			file: fmt.Sprintf(`{"version": %d, "workflow_id": "x", "agents": "a new shape"}`, Version+1),
			want: []string{fmt.Sprintf("run x was written by a newer raymond (state version %d, this one reads up to %d): upgrade raymond to drive it", Version+1, Version)},
		},
		{
			name: "not json",
			file: `{"version": 1, "workflow_id": "x",`,
			want: []string{"x.json is corrupt", "unexpected end of JSON input"},
		},
		{
			name: "wrong type",
			file: `{"version": 1, "workflow_id": "x", "total_cost_usd": "lots"}`,
			want: []string{"x.json is corrupt", "total_cost_usd"},
		},
		{
			name: "bad duration",
			file: `{"version": 1, "workflow_id": "x", "options": {"timeout": "soon"}}`,
			want: []string{"x.json is corrupt", `invalid duration "soon"`},
		},
		{
			name: "no version",
			file: `{"workflow_id": "x"}`,
			want: []string{"x.json is corrupt: no state version"},
		},
		{
			name: "other run inside",
			file: `{"version": 1, "workflow_id": "y"}`,
			want: []string{"x.json is corrupt", `holds run "y"`},
		},
		{
			name:    "missing",
			id:      "nope",
			want:    []string{"no such run nope", "raymond list --all"},
			notFind: true,
		},
		{
			name: "invalid id",
			id:   "../x",
			want: []string{`run id "../x" has '.'`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t)
			if tt.file != "" {
				must(t, os.WriteFile(s.Path("x"), []byte(tt.file), 0o644))
			}
			id := tt.id
			if id == "" {
				id = "x"
			}
			r, err := s.Read(id)
			if r != nil {
				t.Errorf("got run %+v along with the error", r)
			}
			wantErr(t, err, tt.want...)
			if errors.Is(err, ErrNotFound) != tt.notFind {
				t.Errorf("errors.Is(%q, ErrNotFound) = %v, want %v", err, !tt.notFind, tt.notFind)
			}
		})
	}
}

func TestReadIgnoresUnknownFields(t *testing.T) {
	s := openStore(t)
	file := `{"version": 1, "workflow_id": "x", "status": "paused", "from_the_future": [1, 2],
		"agents": [{"id": "main", "status": "ready", "colour": "blue"}]}`
	must(t, os.WriteFile(s.Path("x"), []byte(file), 0o644))
	r, err := s.Read("x")
	must(t, err)
	if r.Status != StatusPaused || len(r.Agents) != 1 || r.Agents[0].ID != "main" {
		t.Errorf("got %+v", r)
	}
}

func TestCreate(t *testing.T) {
	s := openStore(t)
	first := fullRun("dup")
	must(t, s.Create(first))

	err := s.Create(&Run{WorkflowID: "dup", Status: StatusCreated})
	wantErr(t, err, "run dup already exists: choose another id")
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("errors.Is(%q, fs.ErrExist) is false", err)
	}
	got, err := s.Read("dup")
	must(t, err)
	if got.Status != first.Status {
		t.Errorf("the failed create changed the run: status %q", got.Status)
	}
	if names := dirNames(t, s.Dir); !slices.Equal(names, []string{"dup.json"}) {
		t.Errorf("files after create: %q", names)
	}
}

func TestCreateCreatedAt(t *testing.T) {
	s := openStore(t)
	r := &Run{WorkflowID: "new"}
	must(t, s.Create(r))
	if r.CreatedAt.IsZero() || !r.CreatedAt.Equal(r.UpdatedAt) || r.Version != Version {
		t.Errorf("create stamped created_at %v, updated_at %v, version %d", r.CreatedAt, r.UpdatedAt, r.Version)
	}
}

// TestCreateRace has many goroutines create the same id: exactly one wins.
func TestCreateRace(t *testing.T) {
	s := openStore(t)
	const n = 16
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		won  int
		errs []error
	)
	start := make(chan struct{})
	for range n {
		wg.Go(func() {
			<-start
			err := s.Create(&Run{WorkflowID: "race"})
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				won++
			} else {
				errs = append(errs, err)
			}
		})
	}
	close(start)
	wg.Wait()
	if won != 1 {
		t.Fatalf("%d creates succeeded, want 1", won)
	}
	for _, err := range errs {
		if !errors.Is(err, fs.ErrExist) {
			t.Errorf("a losing create failed with %v, want fs.ErrExist", err)
		}
	}
	if names := dirNames(t, s.Dir); !slices.Equal(names, []string{"race.json"}) {
		t.Errorf("files after the race: %q", names)
	}
}

func TestList(t *testing.T) {
	s := openStore(t)
	at := func(min int) time.Time { return time.Date(2026, 1, 1, 0, min, 0, 0, time.UTC) }
	for _, r := range []*Run{
		{WorkflowID: "old", CreatedAt: at(1)},
		{WorkflowID: "newest", CreatedAt: at(3)},
		{WorkflowID: "b-tie", CreatedAt: at(2)},
		{WorkflowID: "a-tie", CreatedAt: at(2)},
	} {
		must(t, s.Create(r))
	}
	// Things that are not runs.
	stray := map[string]string{
		".old.json.123.tmp": "{", // a temp file left by a crash
		"old.lock":          "42\n",
		"notes.txt":         "hello",
		"bad name.json":     "{}",
	}
	for name, content := range stray {
		must(t, os.WriteFile(filepath.Join(s.Dir, name), []byte(content), 0o644))
	}
	must(t, os.Mkdir(filepath.Join(s.Dir, "dir.json"), 0o755))

	runs, err := s.List()
	must(t, err)
	if got, want := runIDs(runs), []string{"newest", "b-tie", "a-tie", "old"}; !slices.Equal(got, want) {
		t.Errorf("List = %q, want %q", got, want)
	}

	// Unreadable files are reported, and the other runs still listed.
	must(t, os.WriteFile(s.Path("broken"), []byte("{not json"), 0o644))
	must(t, os.WriteFile(s.Path("future"), []byte(`{"version": 9, "workflow_id": "future"}`), 0o644))
	runs, err = s.List()
	wantErr(t, err, "broken.json is corrupt", "run future was written by a newer raymond")
	if got, want := runIDs(runs), []string{"newest", "b-tie", "a-tie", "old"}; !slices.Equal(got, want) {
		t.Errorf("List with broken files = %q, want %q", got, want)
	}
}

func TestListEmpty(t *testing.T) {
	runs, err := openStore(t).List()
	if err != nil || len(runs) != 0 {
		t.Errorf("List of an empty store = %v, %v", runs, err)
	}
}

func TestOpenCreatesFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".raymond", "state")
	s, err := Open(dir)
	must(t, err)
	if fi, err := os.Stat(s.Dir); err != nil || !fi.IsDir() {
		t.Fatalf("Open did not create %s: %v", dir, err)
	}

	file := filepath.Join(t.TempDir(), "file")
	must(t, os.WriteFile(file, nil, 0o644))
	_, err = Open(filepath.Join(file, "state"))
	wantErr(t, err, "open state folder")
}

func runIDs(runs []*Run) []string {
	var out []string
	for _, r := range runs {
		out = append(out, r.WorkflowID)
	}
	return out
}
