package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"raymond/state"
)

// runRewinds is a run's place in the tree of rewinds: the run it was
// rewound from, and the runs rewound from it.
type runRewinds struct {
	From *rewindLink  `json:"rewound_from,omitempty"`
	Into []rewindLink `json:"rewound_into"`
}

// rewindLink is one edge of the tree: a run and the step it was rewound at.
type rewindLink struct {
	Run  string `json:"run"`
	Step string `json:"step"`
	Only bool   `json:"only,omitempty"`
}

// rewindsOf finds run id's rewinds among the project's runs; nil when it
// has none either way.
func rewindsOf(store *state.Store, id string) *runRewinds {
	runs, err := store.List()
	if err != nil {
		return nil
	}
	out := &runRewinds{Into: []rewindLink{}}
	for _, r := range runs {
		w := r.Rewound
		switch {
		case w == nil:
		case r.WorkflowID == id:
			out.From = &rewindLink{Run: w.Run, Step: w.Step, Only: w.Only}
		case w.Run == id:
			out.Into = append(out.Into, rewindLink{Run: r.WorkflowID, Step: w.Step, Only: w.Only})
		}
	}
	if out.From == nil && len(out.Into) == 0 {
		return nil
	}
	sort.Slice(out.Into, func(i, j int) bool { return out.Into[i].Run < out.Into[j].Run })
	return out
}

// writeRewinds prints the tree of runs around run id, as text.
func writeRewinds(w io.Writer, id string, rw *runRewinds) {
	if rw == nil {
		return
	}
	fmt.Fprintf(w, "\nRewinds\n")
	if rw.From != nil {
		fmt.Fprintf(w, "  %s\n  └─ %s  (rewound to just before %s)\n", rw.From.Run, id, rw.From.Step)
	} else {
		fmt.Fprintf(w, "  %s\n", id)
	}
	for i, c := range rw.Into {
		branch := "├─"
		if i == len(rw.Into)-1 {
			branch = "└─"
		}
		indent := "  "
		if rw.From != nil {
			indent = "     "
		}
		only := ""
		if c.Only {
			only = ", that step only"
		}
		fmt.Fprintf(w, "%s%s %s  (rewound to just before %s%s)\n", indent, branch, c.Run, c.Step, only)
	}
}

// withRewinds adds "rewinds" to the JSON object data holds (the analysis),
// keeping its keys in their order.
func withRewinds(data []byte, rw *runRewinds) []byte {
	if rw == nil {
		return data
	}
	end := bytes.LastIndexByte(data, '}')
	extra, err := json.Marshal(rw)
	if end < 0 || err != nil {
		return data
	}
	return append(append(append(append([]byte{}, data[:end]...), `,"rewinds":`...), extra...), data[end:]...)
}
