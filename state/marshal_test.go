package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestMarshalRunIsJSONMarshal: the state file and the journal lines are
// byte for byte what json.Marshal writes, for runs and lines of every shape
// (no agents, nil or empty costs, strings that look like the placeholders).
func TestMarshalRunIsJSONMarshal(t *testing.T) {
	saved := spliceFrom
	t.Cleanup(func() { spliceFrom = saved })
	spliceFrom = 0
	check := func(t *testing.T, r *Run) {
		t.Helper()
		want, err := json.Marshal(r)
		must(t, err)
		got, err := marshalRun(r)
		must(t, err)
		if !bytes.Equal(got, append(want, '\n')) {
			t.Fatalf("marshalRun differs from json.Marshal\ngot  %s\nwant %s", got, want)
		}
		line := &journalLine{Gen: 3, Agents: r.Agents, SessionCosts: r.SessionCosts, Unset: []string{"error"}}
		want, err = json.Marshal(line)
		must(t, err)
		got, err = marshalLine(line)
		must(t, err)
		if !bytes.Equal(got, want) {
			t.Fatalf("marshalLine differs from json.Marshal\ngot  %s\nwant %s", got, want)
		}
	}
	t.Run("full", func(t *testing.T) { check(t, fullRun("full")) })
	t.Run("empty", func(t *testing.T) {
		check(t, &Run{WorkflowID: "empty"})
		check(t, &Run{WorkflowID: "empty", Agents: []Agent{}, SessionCosts: map[string]float64{}})
	})
	t.Run("placeholder look-alikes", func(t *testing.T) {
		r := fullRun("look")
		r.Error = `"agents":[{"id":"\u0000"}] "session_costs":{"\u0000":0} <&>` + "\x00"
		r.Agents[0].LastError = r.Error
		r.SessionCosts["<s&>\u2028"] = 1e-7
		r.SessionCosts["big"] = 1e21
		check(t, r)
	})
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("random ", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 9))
			r := &Run{WorkflowID: "rnd", Agents: []Agent{{ID: "main", Status: AgentReady}}}
			for range 200 {
				mutate(rng, r)
				check(t, r)
			}
		})
	}
}

// TestTopFieldsIsUnmarshal: header splits the fields of a run's JSON as
// json.Unmarshal does, whatever its strings hold.
func TestTopFieldsIsUnmarshal(t *testing.T) {
	check := func(t *testing.T, r *Run) {
		t.Helper()
		h := *r
		h.Agents, h.SessionCosts = nil, nil
		data, err := json.Marshal(&h)
		must(t, err)
		var want map[string]json.RawMessage
		must(t, json.Unmarshal(data, &want))
		got, err := topFields(data)
		must(t, err)
		if len(got) != len(want) {
			t.Fatalf("topFields has %d fields, want %d\n%s", len(got), len(want), data)
		}
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Fatalf("field %s = %s, want %s", k, got[k], v)
			}
		}
	}
	r := fullRun("fields")
	check(t, r)
	r.Error = `a "quoted" {brace} [bracket], comma \ backslash \" <tag> ` + "\x00\u2028é"
	r.Warned = append(r.Warned, r.Error, `}`, `\`, `"`)
	r.Options.Model = `,"x":{`
	check(t, r)
	check(t, &Run{})
	rng := rand.New(rand.NewPCG(1, 2))
	r = &Run{WorkflowID: "rnd", Agents: []Agent{{ID: "main"}}}
	for range 100 {
		mutate(rng, r)
		check(t, r)
	}
	for _, bad := range []string{"", "{", `{"a"}`, `{"a":}`, `{"a":{"b":1}`, `["a"]`, `{"a":"x}`} {
		if _, err := topFields([]byte(bad)); err == nil {
			t.Errorf("topFields(%q) did not fail", bad)
		}
	}
}
