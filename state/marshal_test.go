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
