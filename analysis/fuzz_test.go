package analysis

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds Load arbitrary events and a meta file, as a damaged or
// hand-edited transcript would: the analysis and every report must come
// out without a panic, whatever the events claim (steps that end before
// they start, transitions of agents never spawned, negative costs, …).
func FuzzLoad(f *testing.F) {
	seed := `{"time":"2026-11-21T10:00:00Z","type":"run_started","state":"START.md","message":"/wf"}
{"time":"2026-11-21T10:00:00.1Z","type":"step_started","agent":"main","step":"main_START_001","state":"START.md","session":"s1","attempt":1}
{"time":"2026-11-21T10:00:01Z","type":"step_ended","agent":"main","step":"main_START_001","state":"START.md","attempt":1,"outcome":"success","cost_usd":0.01,"total_cost_usd":0.01,"duration_ms":900}
{"time":"2026-11-21T10:00:01Z","type":"transition","agent":"main","step":"main_START_001","state":"START.md","tag":"fork","target":"W.md"}
{"time":"2026-11-21T10:00:01Z","type":"spawn","agent":"main","step":"main_START_001","state":"W.md","child":"main_w1","parent":"main"}
{"time":"2026-11-21T10:00:01Z","type":"transition","agent":"main","step":"main_START_001","state":"START.md","tag":"call","target":"SUB.md","depth":1}
{"time":"2026-11-21T10:00:02Z","type":"reminder","agent":"main_w1","step":"main_w1_W_001","state":"W.md","attempt":2,"message":"no tag"}
{"time":"2026-11-21T10:00:03Z","type":"retry","agent":"main","step":"main_SUB_002","state":"SUB.md","attempt":2,"outcome":"crash"}
{"time":"2026-11-21T10:00:03Z","type":"wait","until":"2026-11-21T10:05:00Z","message":"limit"}
{"time":"2026-11-21T10:05:00Z","type":"wait_over"}
{"time":"2026-11-21T10:05:01Z","type":"agent_failed","agent":"main_w1","state":"W.md","message":"gave up"}
{"time":"2026-11-21T10:05:02Z","type":"run_resumed","state":"START.md"}
{"time":"2026-11-21T10:05:03Z","type":"transition","agent":"main","step":"main_SUB_003","state":"SUB.md","tag":"result","target":"START.md","payload":"x"}
{"time":"2026-11-21T10:05:04Z","type":"agent_completed","agent":"main","state":"START.md","payload":"done"}
{"time":"2026-11-21T10:05:04Z","type":"budget_exceeded","total_cost_usd":5}
{"time":"2026-11-21T10:05:05Z","type":"run_ended","status":"completed","total_cost_usd":0.02}
`
	meta := `{"agent":"main","state":"START.md","seq":1,"attempt":1,"cwd":"/","session_mode":"new","started":"2026-11-21T10:00:00Z","ended":"2026-11-21T10:00:01Z","duration_ms":900,"exit_code":0,"outcome":"success","cost_usd":0.01,"total_cost_usd":0.01,"usage":{"input_tokens":1,"output_tokens":2}}`
	f.Add([]byte(seed), []byte(meta))
	f.Add([]byte(`{"time":"2026-11-21T10:00:01Z","type":"step_ended","agent":"main","step":"main_START_001","duration_ms":-5}`+"\n"+`{"time":"2026-11-21T09:00:00Z","type":"step_started","agent":"main","step":"main_START_001"}`+"\n"), []byte(`{"seq":-1,"started":"2030-01-01T00:00:00Z"}`))
	f.Add([]byte("{\"type\":\"transition\",\"agent\":\"x\",\"tag\":\"result\",\"depth\":-3}\n{not json\n"), []byte("{"))
	f.Fuzz(func(t *testing.T, events, meta []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "events.jsonl"), events, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "main_START_001.meta.json"), meta, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Load(Source{Dir: dir})
		if err != nil {
			return
		}
		for _, o := range []TextOptions{{}, {Width: MinWidth, Sort: "time"}, {Width: 200, Color: true}} {
			if err := WriteText(io.Discard, r, o); err != nil {
				t.Fatalf("WriteText: %v", err)
			}
		}
		if err := WriteJSON(io.Discard, r); err != nil {
			t.Fatalf("WriteJSON: %v", err)
		}
		if err := WriteMermaid(io.Discard, r); err != nil {
			t.Fatalf("WriteMermaid: %v", err)
		}
		detail := func(s *Step) (*Detail, error) { return LoadDetail(dir, s) }
		if err := WriteHTML(io.Discard, r, detail); err != nil {
			t.Fatalf("WriteHTML: %v", err)
		}
		for _, s := range r.Steps {
			d, err := LoadDetail(dir, s)
			if err != nil {
				continue
			}
			if err := WriteDetail(io.Discard, d, TextOptions{}); err != nil {
				t.Fatalf("WriteDetail: %v", err)
			}
		}
		CriticalPath(r)
	})
}
