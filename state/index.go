package state

// AgentIndex finds agents in a run's Agents by id in constant time, where
// Run.Agent scans them. Its owner keeps it beside the run (the zero value is
// ready) and passes the run's current Agents at each lookup: the index
// follows the slice on its own when agents are appended, and rebuilds itself
// when the slice is replaced by another (a run read again, a copy). It
// assumes only that an agent's ID never changes while the agent is in the
// slice, which holds for raymond's runs: ids are given once, at creation.
//
// An AgentIndex is not safe for concurrent use.
type AgentIndex struct {
	at   map[string]int
	base *Agent // &agents[0] of the slice indexed
	n    int    // how many of its agents are indexed
	last string // the id of agents[n-1], to tell a slice refilled in place
}

// Find returns the position of agent id in agents, -1 when it has none.
// agents is the run's Agents, the same slice (or a longer one) as at the
// last call, or a new one.
func (x *AgentIndex) Find(agents []Agent, id string) int {
	if len(agents) == 0 {
		return -1
	}
	if x.at == nil || &agents[0] != x.base || len(agents) < x.n || agents[x.n-1].ID != x.last {
		x.rebuild(agents)
	}
	if i, ok := x.at[id]; ok && i < len(agents) && agents[i].ID == id {
		return i
	} else if ok {
		// Checked at every hit, so an id changed by hand against the
		// rule above costs a rebuild, not a wrong answer.
		x.rebuild(agents)
		if i, ok := x.at[id]; ok {
			return i
		}
		return -1
	}
	if x.n < len(agents) {
		x.extend(agents)
		if i, ok := x.at[id]; ok {
			return i
		}
	}
	return -1
}

// Agent returns the agent with the given id in r, or nil: Run.Agent through
// the index. The pointer goes stale like Run.Agent's.
func (x *AgentIndex) Agent(r *Run, id string) *Agent {
	if i := x.Find(r.Agents, id); i >= 0 {
		return &r.Agents[i]
	}
	return nil
}

func (x *AgentIndex) rebuild(agents []Agent) {
	x.at = make(map[string]int, len(agents))
	x.n = 0
	x.extend(agents)
}

// extend indexes the agents appended since the last call. An id already
// indexed keeps its first position, as Run.Agent finds it.
func (x *AgentIndex) extend(agents []Agent) {
	for i := x.n; i < len(agents); i++ {
		if _, dup := x.at[agents[i].ID]; !dup {
			x.at[agents[i].ID] = i
		}
	}
	x.base, x.n, x.last = &agents[0], len(agents), agents[len(agents)-1].ID
}
