package state

import (
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

var idPattern = regexp.MustCompile(`^\d{8}-\d{6}-\d{6}-[0-9a-f]{6}$`)

func TestNewIDFormat(t *testing.T) {
	var g idGen
	id := g.next(time.Date(2026, 11, 21, 15, 40, 12, 123456789, time.FixedZone("CET", 3600)))
	if !strings.HasPrefix(id, "20261121-144012-123456-") || !idPattern.MatchString(id) {
		t.Errorf("id %q: want UTC 20261121-144012-123456-<6 hex>", id)
	}
	if err := ValidID(NewID()); err != nil {
		t.Errorf("NewID is not a valid id: %v", err)
	}
}

func TestNewIDOrder(t *testing.T) {
	var g idGen
	base := time.Date(2026, 1, 1, 23, 59, 59, 999_999_000, time.UTC)
	times := []time.Time{
		base,
		base,                           // same microsecond
		base.Add(-time.Hour),           // the clock went back
		base.Add(time.Microsecond),     // into the next day
		base.Add(10 * time.Second),     // later
		base.Add(10 * time.Second),     // same again
		base.Add(366 * 24 * time.Hour), // next year
	}
	prev := ""
	for i, at := range times {
		id := g.next(at)
		if !idPattern.MatchString(id) {
			t.Errorf("id %d %q has the wrong shape", i, id)
		}
		if id <= prev {
			t.Errorf("id %d %q does not sort after %q", i, id, prev)
		}
		prev = id
	}
}

// TestNewIDConcurrent makes 100k ids from several goroutines in a tight loop:
// all differ, and each goroutine's are strictly increasing.
func TestNewIDConcurrent(t *testing.T) {
	const (
		workers = 8
		each    = 100_000 / workers
	)
	got := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			ids := make([]string, each)
			for i := range ids {
				ids[i] = NewID()
			}
			got[w] = ids
		})
	}
	wg.Wait()

	seen := make(map[string]bool, workers*each)
	for w, ids := range got {
		for i, id := range ids {
			if seen[id] {
				t.Fatalf("duplicate id %q", id)
			}
			seen[id] = true
			if i > 0 && id <= ids[i-1] {
				t.Fatalf("goroutine %d: id %q after %q", w, id, ids[i-1])
			}
		}
	}
}

func TestValidID(t *testing.T) {
	tests := []struct {
		id   string
		want string // "" when valid
	}{
		{id: "a"},
		{id: "20261121-154012-123456-3f9a2c"},
		{id: "nightly_build-2"},
		{id: "_x"},
		{id: "9"},
		{id: strings.Repeat("x", MaxIDLen)},
		{id: "", want: "run id is empty"},
		{id: strings.Repeat("x", MaxIDLen+1), want: "is too long: 129 characters, at most 128"},
		{id: "-x", want: `run id "-x" starts with '-'`},
		{id: "a b", want: `run id "a b" has ' ' at byte 1`},
		{id: "../etc", want: `has '.' at byte 0`},
		{id: "a/b", want: `has '/' at byte 1`},
		{id: `a\b`, want: `has '\\' at byte 1`},
		{id: "x.json", want: `has '.' at byte 1`},
		{id: "café", want: `has 'é' at byte 3`},
		{id: "a\x00", want: `has '\x00' at byte 1`},
	}
	for _, tt := range tests {
		err := ValidID(tt.id)
		if tt.want == "" {
			if err != nil {
				t.Errorf("ValidID(%q) = %v, want nil", tt.id, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ValidID(%q) = %v, want an error containing %q", tt.id, err, tt.want)
		}
	}
}
