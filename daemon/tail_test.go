package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"raymond/transcript"
)

func appendEvents(t testing.TB, folder string, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(folder, transcript.EventsFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	require.NoError(t, err)
	_, err = f.WriteString(text)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

func ids(events []Event) string {
	var s []string
	for _, e := range events {
		s = append(s, e.ID+":"+e.Event.Type)
	}
	return strings.Join(s, " ")
}

// A tail reads what was appended since it last read, lines numbered as in
// the file, a torn last line once it is complete.
func TestTailReadsOnlyWhatWasAppended(t *testing.T) {
	folder := t.TempDir()
	tail := NewTail(folder, 1)
	defer tail.Close()
	got, err := tail.Next()
	require.NoError(t, err)
	require.Empty(t, got, "no file yet")

	appendEvents(t, folder, `{"type":"run_started"}`+"\n"+`{"type":"step_started"}`+"\n"+`{"type":"step_`)
	got, err = tail.Next()
	require.NoError(t, err)
	require.Equal(t, "2:step_started", ids(got), "line 1 is skipped, the torn line waits")

	appendEvents(t, folder, `ended"}`+"\n"+"not json\n"+`{"type":"run_ended"}`+"\n")
	got, err = tail.Next()
	require.NoError(t, err)
	require.Equal(t, "3:step_ended 5:run_ended", ids(got))

	got, err = tail.Next()
	require.NoError(t, err)
	require.Empty(t, got)
}

// BenchmarkFollowEvents measures a follower of a run another process
// drives, once a second (its poll): one new event in a 20 MB events file.
// "reread" is how the stream followed the file before (ReadEvents of the
// whole file), "tail" how it follows it now.
//
//	go test -run '^$' -bench FollowEvents ./daemon
func BenchmarkFollowEvents(b *testing.B) {
	line := fmt.Sprintf(`{"type":"text","message":"%s"}`+"\n", strings.Repeat("x", 200))
	setup := func(b *testing.B) (string, int) {
		folder := b.TempDir()
		n := 20 << 20 / len(line)
		appendEvents(b, folder, strings.Repeat(line, n))
		return folder, n
	}
	b.Run("reread", func(b *testing.B) {
		folder, n := setup(b)
		for b.Loop() {
			appendEvents(b, folder, line)
			n++
			events, err := ReadEvents(folder, n-1, 0)
			if err != nil || len(events) != 1 {
				b.Fatalf("%d events, %v", len(events), err)
			}
		}
	})
	b.Run("tail", func(b *testing.B) {
		folder, n := setup(b)
		tail := NewTail(folder, n)
		defer tail.Close()
		if _, err := tail.Next(); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			appendEvents(b, folder, line)
			events, err := tail.Next()
			if err != nil || len(events) != 1 {
				b.Fatalf("%d events, %v", len(events), err)
			}
		}
	})
}
