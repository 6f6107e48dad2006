package claude

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestDecoderMatchesRun: a Decoder fed a capture's lines reports the same
// events and the same raw result fields as the decoding Run does.
func TestDecoderMatchesRun(t *testing.T) {
	for _, name := range []string{"tool-use.stream.jsonl", "api-500.stream.jsonl", "max-turns.stream.jsonl", "success.stream.jsonl"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(fixture(t, name))
			must(t, err)
			want, wantEvents := decodeOutput(t, string(data), "", 0)
			var got []Event
			d := NewDecoder(func(e Event) { got = append(got, e) })
			for line := range bytes.Lines(data) {
				d.Line(line)
			}
			if !reflect.DeepEqual(got, wantEvents) {
				t.Errorf("events differ:\n got %+v\nwant %+v", got, wantEvents)
			}
			r := d.Result()
			eq(t, "HasResult", r.HasResult, want.HasResult)
			eq(t, "Text", r.Text, want.Text)
			eq(t, "IsError", r.IsError, want.IsError)
			eq(t, "Subtype", r.Subtype, want.Subtype)
			eq(t, "SessionID", r.SessionID, want.SessionID)
			eq(t, "Errors", strings.Join(r.Errors, "|"), strings.Join(want.Errors, "|"))
		})
	}
}

func TestContentText(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{`"plain"`, "plain"},
		{`[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]`, "a\nb"},
		{`{"message":"session expired"}`, "session expired"},
		{`{"code":7}`, `{"code":7}`},
		{``, ""},
	} {
		eq(t, tc.raw, ContentText([]byte(tc.raw)), tc.want)
	}
}
