package claude

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestLineReader(t *testing.T) {
	type line struct {
		text      string
		truncated bool
		size      int
	}
	tests := []struct {
		name  string
		input string
		max   int
		want  []line
	}{
		{"empty", "", 10, nil},
		{"lines", "a\nbb\n\nccc\n", 10, []line{{"a", false, 1}, {"bb", false, 2}, {"", false, 0}, {"ccc", false, 3}}},
		{"last line without newline", "a\nbb", 10, []line{{"a", false, 1}, {"bb", false, 2}}},
		{"exactly max", "0123456789\nx\n", 10, []line{{"0123456789", false, 10}, {"x", false, 1}}},
		{"over max is cut and skipped past", "0123456789AB\nx\n", 10, []line{{"0123456789", true, 12}, {"x", false, 1}}},
		{"over max at the end", "x\n0123456789AB", 10, []line{{"x", false, 1}, {"0123456789", true, 12}}},
		{"longer than the read buffer", strings.Repeat("y", 200<<10) + "\nz\n", 1 << 20,
			[]line{{strings.Repeat("y", 200<<10), false, 200 << 10}, {"z", false, 1}}},
		{"far longer than max and the buffer", strings.Repeat("y", 300<<10) + "\nz\n", 100 << 10,
			[]line{{strings.Repeat("y", 100<<10), true, 300 << 10}, {"z", false, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// One byte at a time too, to split lines at every point.
			for _, r := range []io.Reader{strings.NewReader(tc.input), iotest.OneByteReader(strings.NewReader(tc.input))} {
				lr := newLineReader(r, tc.max)
				var got []line
				for {
					b, truncated, err := lr.next()
					if err != nil {
						if err != io.EOF {
							t.Fatalf("next: %v", err)
						}
						break
					}
					got = append(got, line{string(b), truncated, lr.size})
				}
				eq(t, "lines", got, tc.want)
			}
		})
	}
}

// TestLineReaderRelease: a reader given back with bytes still buffered
// hands none of them to the next reader that reuses its buffer.
func TestLineReaderRelease(t *testing.T) {
	for range 3 {
		first := newLineReader(strings.NewReader("a\nleft over\n"), maxLine)
		line, _, err := first.next()
		if err != nil || string(line) != "a" {
			t.Fatalf("first line = %q, %v; want \"a\"", line, err)
		}
		first.release()
		first.release() // a second release does nothing

		second := newLineReader(strings.NewReader("b\n"), maxLine)
		var got []string
		for {
			line, _, err := second.next()
			if err != nil {
				break
			}
			got = append(got, string(line))
		}
		second.release()
		eq(t, "lines after reuse", got, []string{"b"})
	}
}

func TestLineType(t *testing.T) {
	for in, want := range map[string]string{
		`{"type":"result","subtype":"success"`: "result",
		` { "type" : "user", "message"`:        "user",
		`{"subtype":"init","type":"system"}`:   "",
		`not json`:                             "",
		`{"type":"` + strings.Repeat("x", 300): "",
	} {
		eq(t, "lineType("+in[:min(len(in), 30)]+")", lineType([]byte(in)), want)
	}
}
