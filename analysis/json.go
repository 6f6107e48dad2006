package analysis

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes r as one indented JSON object (the --json schema,
// version SchemaVersion, documented in docs/analysing-runs.md).
func WriteJSON(w io.Writer, r *Run) error {
	out := *r
	out.Schema = SchemaVersion
	return writeJSON(w, &out)
}

// WriteDetailJSON writes one step in full as one indented JSON object
// (--step with --json).
func WriteDetailJSON(w io.Writer, d *Detail) error { return writeJSON(w, d) }

// writeJSON writes v indented, leaving <, > and & as they are: prompts and
// answers are full of tags.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}
