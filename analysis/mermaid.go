package analysis

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Node ids of the flowchart's special nodes. State nodes are prefixed
// with "s_", so these never clash with one, and none is Mermaid's
// reserved word "end".
const (
	mermaidStartID  = "run_start"
	mermaidEndID    = "run_end"
	mermaidFailedID = "run_failed"
)

// mermaidEdgeKind says how an edge is drawn.
type mermaidEdgeKind int

const (
	mermaidPlain      mermaidEdgeKind = iota // goto, reset: -->
	mermaidCall                              // call, function: ==> (thick)
	mermaidReturn                            // result back to the caller: --o
	mermaidFork                              // an agent started by a fork: -.-> (dotted)
	mermaidAsk                               // an ask answered: -.-> (dotted), coloured
	mermaidAskTimeout                        // an ask that timed out: -.-> (dotted), red
)

// mermaidArrows are the link tokens of each kind.
var mermaidArrows = [...]string{
	mermaidPlain:      "-->",
	mermaidCall:       "==>",
	mermaidReturn:     "--o",
	mermaidFork:       "-.->",
	mermaidAsk:        "-.->",
	mermaidAskTimeout: "-.->",
}

// mermaidLinkStyles colour the edges of the kinds that share their arrow
// with another kind.
var mermaidLinkStyles = map[mermaidEdgeKind]string{
	mermaidAsk:        "stroke:#c77c00,stroke-width:2px",
	mermaidAskTimeout: "stroke:#b00,stroke-width:2px,stroke-dasharray:3 3",
}

// mermaidKey is one edge: node ids, the tag, and how it is drawn.
type mermaidKey struct {
	From, Label, To string
	Kind            mermaidEdgeKind
}

// mermaidEdge is an edge taken Count times.
type mermaidEdge struct {
	mermaidKey
	Count int
}

// mermaidGraph collects nodes and edges in the order they first appear,
// so that the same run always gives the same text.
type mermaidGraph struct {
	ids    map[string]string // state name -> node id
	taken  map[string]bool   // node ids in use
	states []string          // state names in order of appearance
	index  map[mermaidKey]int
	edges  []mermaidEdge
}

// WriteMermaid writes the path actually taken as a Mermaid flowchart, with
// the number of times each edge was taken on it.
//
// Every state visited is one node, labelled with its name. Every (from,
// tag, to) taken is one edge labelled "tag ×count": goto and reset (and
// reset-workflow) are plain arrows, call and function (and their
// -workflow forms) thick ones, a result that returns to the caller ends in
// a circle, and the agents a fork started hang off dotted edges to their
// first state. An answered ask is a dotted orange edge to where the
// agent went on, an ask that timed out a dashed red one to its
// timeout_next (or to the failed node). A state in another workflow is
// named scope/STATE.md. A start node points at the entry; a
// result that ends an agent goes to an end node, an agent that failed to
// a failed node. Nodes and edges come in the order they were first
// reached, so the output is the same for the same run.
func WriteMermaid(w io.Writer, r *Run) error {
	g := buildMermaidGraph(r)
	bw := bufio.NewWriter(w)
	g.write(bw, r)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write mermaid: %w", err)
	}
	return nil
}

func buildMermaidGraph(r *Run) *mermaidGraph {
	g := &mermaidGraph{
		ids:   map[string]string{},
		taken: map[string]bool{mermaidStartID: true, mermaidEndID: true, mermaidFailedID: true},
		index: map[mermaidKey]int{},
	}
	agents := make(map[string]*Agent, len(r.Agents))
	for _, a := range r.Agents {
		agents[a.ID] = a
	}
	if len(r.Agents) == 0 || len(r.Agents[0].Path) == 0 {
		if r.Entry != "" {
			g.add(mermaidStartID, "", g.node(r.Entry), mermaidPlain)
		}
	}
	for _, a := range r.Agents {
		for i, v := range a.Path {
			from := g.node(v.State)
			if i == 0 && v.Via == "" {
				g.add(mermaidStartID, "", from, mermaidPlain)
			}
			forkTag := "fork"
			if v.Exit == "fork-workflow" {
				forkTag = v.Exit
			}
			for _, child := range v.Spawned {
				if c := agents[child]; c != nil && len(c.Path) > 0 {
					g.add(from, forkTag, g.node(c.Path[0].State), mermaidFork)
				}
			}
			switch {
			case v.Exit == "":
				if i == len(a.Path)-1 && a.Status == "failed" {
					g.add(from, "failed", mermaidFailedID, mermaidPlain)
				}
			case v.Target == "" && v.Exit == askTimeoutTag:
				g.add(from, v.Exit, mermaidFailedID, mermaidAskTimeout)
			case v.Target == "":
				g.add(from, v.Exit, mermaidEndID, mermaidPlain)
			default:
				g.add(from, v.Exit, g.node(v.Target), mermaidKindOf(v.Exit))
			}
		}
	}
	return g
}

// mermaidKindOf is how a transition with tag is drawn.
func mermaidKindOf(tag string) mermaidEdgeKind {
	switch tag {
	case "call", "function", "call-workflow", "function-workflow":
		return mermaidCall
	case "result":
		return mermaidReturn
	case "ask":
		return mermaidAsk
	case askTimeoutTag:
		return mermaidAskTimeout
	}
	return mermaidPlain
}

// node returns the node id of state, making one on first sight.
func (g *mermaidGraph) node(state string) string {
	if id, ok := g.ids[state]; ok {
		return id
	}
	base := "s_" + mermaidID(state)
	id := base
	for n := 2; g.taken[id]; n++ {
		id = fmt.Sprintf("%s_%d", base, n)
	}
	g.ids[state] = id
	g.taken[id] = true
	g.states = append(g.states, state)
	return id
}

// add counts one taking of an edge.
func (g *mermaidGraph) add(from, label, to string, kind mermaidEdgeKind) {
	k := mermaidKey{From: from, Label: label, To: to, Kind: kind}
	if i, ok := g.index[k]; ok {
		g.edges[i].Count++
		return
	}
	g.index[k] = len(g.edges)
	g.edges = append(g.edges, mermaidEdge{mermaidKey: k, Count: 1})
}

func (g *mermaidGraph) write(w *bufio.Writer, r *Run) {
	fmt.Fprintln(w, "flowchart TD")
	used := map[string]bool{}
	for _, e := range g.edges {
		used[e.From], used[e.To] = true, true
	}
	if used[mermaidStartID] {
		fmt.Fprintf(w, "    %s((\"start\"))\n", mermaidStartID)
	}
	for _, s := range g.states {
		fmt.Fprintf(w, "    %s[\"%s\"]\n", g.ids[s], mermaidText(s))
	}
	if used[mermaidEndID] {
		fmt.Fprintf(w, "    %s((\"end\"))\n", mermaidEndID)
	}
	if used[mermaidFailedID] {
		fmt.Fprintf(w, "    %s((\"failed\"))\n", mermaidFailedID)
	}
	for _, e := range g.edges {
		arrow := mermaidArrows[e.Kind]
		if e.Label == "" {
			fmt.Fprintf(w, "    %s %s %s\n", e.From, arrow, e.To)
			continue
		}
		fmt.Fprintf(w, "    %s %s|\"%s ×%d\"| %s\n", e.From, arrow, mermaidText(e.Label), e.Count, e.To)
	}
	for i, e := range g.edges {
		if style, ok := mermaidLinkStyles[e.Kind]; ok {
			fmt.Fprintf(w, "    linkStyle %d %s\n", i, style)
		}
	}
	fmt.Fprintln(w, "    classDef terminal fill:#eee,stroke:#666")
	fmt.Fprintln(w, "    classDef entry stroke-width:3px")
	fmt.Fprintln(w, "    classDef failed fill:#fdd,stroke:#b00")
	var special []string
	for _, id := range []string{mermaidStartID, mermaidEndID} {
		if used[id] {
			special = append(special, id)
		}
	}
	if len(special) > 0 {
		fmt.Fprintf(w, "    class %s terminal\n", strings.Join(special, ","))
	}
	if used[mermaidFailedID] {
		fmt.Fprintf(w, "    class %s failed\n", mermaidFailedID)
	}
	if entry := mermaidEntry(r); entry != "" {
		if id, ok := g.ids[entry]; ok {
			fmt.Fprintf(w, "    class %s entry\n", id)
		}
	}
}

// mermaidEntry is the run's entry state: main's first state, else Entry.
func mermaidEntry(r *Run) string {
	if len(r.Agents) > 0 && len(r.Agents[0].Path) > 0 && r.Agents[0].Path[0].Via == "" {
		return r.Agents[0].Path[0].State
	}
	return r.Entry
}

// mermaidID turns a state name into the letters, digits and underscores a
// Mermaid node id may hold.
func mermaidID(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// mermaidText escapes s for a quoted Mermaid label: the characters that
// would end the string, start an entity or be read as HTML or markdown
// become entity codes, and line breaks become spaces.
func mermaidText(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch c {
		case '"':
			b.WriteString("#quot;")
		case '#':
			b.WriteString("#35;")
		case '<':
			b.WriteString("#lt;")
		case '>':
			b.WriteString("#gt;")
		case '&':
			b.WriteString("#amp;")
		case '`':
			b.WriteString("#96;")
		case '|':
			b.WriteString("#124;")
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}
