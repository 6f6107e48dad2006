package analysis

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"raymond/transcript"
)

// The suffixes of a step's files in a transcript folder.
const (
	promptSuffix = ".prompt.md"
	linesSuffix  = ".jsonl"
	metaSuffix   = ".meta.json"
)

// folder is what a transcript folder holds, read but not yet interpreted.
type folder struct {
	// events are the events that decoded, in order.
	events []transcript.Event
	// noEvents is set when events.jsonl does not exist.
	noEvents bool
	// torn is the length of a last line without its newline, 0 if none.
	torn int
	// badLines are the numbers of lines that did not decode.
	badLines []int
	// files are the step files present, by step name.
	files map[string]*stepFiles
	// names are the step names of files, sorted.
	names []string
}

// stepFiles are the files of one step that exist, and its meta record.
type stepFiles struct {
	prompt, lines, meta bool
	// stdout and stderr are a script step's output files.
	stdout, stderr bool
	// m is the meta record, nil when there is none or it does not decode.
	m *transcript.Meta
	// badMeta is set when the meta file exists but does not decode.
	badMeta bool
}

// readFolder reads the transcript folder dir: its events and every step's
// meta record. It fails only when dir cannot be listed or holds no
// transcript at all.
func readFolder(dir string) (*folder, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no transcript folder %s", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("read transcript folder: %w", err)
	}
	f := &folder{files: make(map[string]*stepFiles)}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || name == transcript.EventsFile {
			continue
		}
		for _, suffix := range [...]string{promptSuffix, metaSuffix, linesSuffix, stdoutSuffix, stderrSuffix} {
			base, ok := strings.CutSuffix(name, suffix)
			if !ok || base == "" {
				continue
			}
			sf := f.files[base]
			if sf == nil {
				sf = &stepFiles{}
				f.files[base] = sf
				f.names = append(f.names, base)
			}
			switch suffix {
			case promptSuffix:
				sf.prompt = true
			case metaSuffix:
				sf.meta = true
			case stdoutSuffix:
				sf.stdout = true
			case stderrSuffix:
				sf.stderr = true
			default:
				sf.lines = true
			}
			break
		}
	}
	for _, name := range f.names {
		if sf := f.files[name]; sf.meta {
			sf.m, sf.badMeta = readMeta(filepath.Join(dir, name+metaSuffix))
		}
	}

	data, err := os.ReadFile(filepath.Join(dir, transcript.EventsFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.noEvents = true
	case err != nil:
		return nil, fmt.Errorf("read events: %w", err)
	default:
		f.events, f.torn, f.badLines = decodeEvents(data)
	}
	if f.noEvents && len(f.files) == 0 {
		return nil, fmt.Errorf("%s holds no transcript: no %s and no step files", dir, transcript.EventsFile)
	}
	return f, nil
}

// readMeta reads a step's meta file; bad is set when it exists but does
// not decode (a crash cut it short).
func readMeta(path string) (m *transcript.Meta, bad bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, true
	}
	m = new(transcript.Meta)
	if err := json.Unmarshal(data, m); err != nil {
		return nil, true
	}
	return m, false
}

// decodeEvents decodes the lines of an events file. A last line without a
// newline is a record cut short: it is left out and its length returned as
// torn. Lines that do not decode are skipped and their numbers returned.
func decodeEvents(data []byte) (events []transcript.Event, torn int, bad []int) {
	events = make([]transcript.Event, 0, bytes.Count(data, []byte{'\n'}))
	for n := 1; len(data) > 0; n++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return events, len(data), bad
		}
		line := data[:i]
		data = data[i+1:]
		if e, ok := decodeEvent(line); ok {
			events = append(events, e)
		} else if len(bytes.TrimSpace(line)) > 0 {
			bad = append(bad, n)
		}
	}
	return events, 0, bad
}

// decodeEvent decodes one line of events.jsonl; ok is false for a blank
// line or one that does not decode as an event: no type, or no time (a
// line raymond never writes, whose zero time would stretch every span to
// the year 1).
func decodeEvent(line []byte) (e transcript.Event, ok bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return e, false
	}
	if err := json.Unmarshal(line, &e); err != nil || e.Type == "" || e.Time.IsZero() {
		return e, false
	}
	return e, true
}
