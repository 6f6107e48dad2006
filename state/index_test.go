package state

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// linearFind is what AgentIndex.Find must answer: Run.Agent's scan.
func linearFind(agents []Agent, id string) int {
	return slices.IndexFunc(agents, func(a Agent) bool { return a.ID == id })
}

// TestAgentIndexFollowsTheSlice changes a run's agents the ways drivers and
// readers do (append, with and without reallocation; replace the slice by a
// copy, a new run, a shorter one, one refilled in place; change an agent in
// place, its id kept) and checks every id, present or not, against a scan.
func TestAgentIndexFollowsTheSlice(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			var x AgentIndex
			r := &Run{}
			seq := 0
			newAgent := func() Agent { seq++; return Agent{ID: fmt.Sprintf("main_w%d", seq)} }
			for step := range 150 {
				var op string
				switch rng.IntN(8) {
				case 0, 1, 2:
					op = "append"
					for range 1 + rng.IntN(5) {
						r.Agents = append(r.Agents, newAgent())
					}
				case 3:
					op = "copy"
					r.Agents = slices.Clone(r.Agents)
				case 4:
					op = "shorter"
					r.Agents = r.Agents[:rng.IntN(len(r.Agents)+1)]
				case 5:
					op = "refill in place"
					n := len(r.Agents)
					r.Agents = r.Agents[:0]
					for range n + rng.IntN(3) {
						r.Agents = append(r.Agents, newAgent())
					}
				case 6:
					op = "change in place"
					if len(r.Agents) > 0 {
						i := rng.IntN(len(r.Agents))
						r.Agents[i] = Agent{ID: r.Agents[i].ID, Steps: step}
					}
				default:
					op = "read again"
					r = &Run{Agents: slices.Clone(r.Agents)}
				}
				for k := 0; k <= seq+1; k++ {
					id := fmt.Sprintf("main_w%d", k)
					if got, want := x.Find(r.Agents, id), linearFind(r.Agents, id); got != want {
						t.Fatalf("step %d (%s): Find(%s) = %d, want %d", step, op, id, got, want)
					}
				}
			}
		})
	}
}

func TestAgentIndexAgent(t *testing.T) {
	var x AgentIndex
	r := &Run{}
	if x.Agent(r, "main") != nil {
		t.Fatal("found an agent in an empty run")
	}
	r.Agents = append(r.Agents, Agent{ID: "main"}, Agent{ID: "main_w1"})
	a := x.Agent(r, "main_w1")
	if a == nil || a != &r.Agents[1] {
		t.Fatalf("Agent(main_w1) = %p, want %p", a, &r.Agents[1])
	}
	// An id changed by hand, against the rule, is found where it is now.
	r.Agents[0].ID, r.Agents[1].ID = "main_w1", "main"
	if got := x.Find(r.Agents, "main_w1"); got != 0 {
		t.Fatalf("after swapping ids, Find(main_w1) = %d, want 0", got)
	}
	if got := x.Find(r.Agents, "main"); got != 1 {
		t.Fatalf("after swapping ids, Find(main) = %d, want 1", got)
	}
}

// BenchmarkAgentIndex compares finding the last of 10,000 agents through
// the index with Run.Agent's scan.
func BenchmarkAgentIndex(b *testing.B) {
	r := &Run{}
	for i := range 10000 {
		r.Agents = append(r.Agents, Agent{ID: fmt.Sprintf("main_worker%d", i)})
	}
	last := r.Agents[len(r.Agents)-1].ID
	b.Run("index", func(b *testing.B) {
		var x AgentIndex
		for b.Loop() {
			if x.Agent(r, last) == nil {
				b.Fatal("not found")
			}
		}
	})
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			if r.Agent(last) == nil {
				b.Fatal("not found")
			}
		}
	})
}
