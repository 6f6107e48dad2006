package diagram

import (
	"fmt"
	"strings"

	"raymond/lint"
)

// mermaidArrows are the Mermaid link of each edge kind.
var mermaidArrows = map[kind]string{
	kindGoto: "-->", kindReset: "==>", kindCall: "-->", kindFunction: "-->", kindReturn: "-.->",
	kindFork: "--o", kindForkNext: "-.->", kindAsk: "-->", kindTimeout: "-.-x", kindResult: "-->", kindWorkflow: "==>",
	kindCap: "-.->",
}

// colours are the stroke colour of each edge kind, in Mermaid and HTML.
var colours = map[kind]string{
	kindGoto: "#555555", kindReset: "#b03060", kindCall: "#1f6fb2", kindFunction: "#1f8f8f", kindReturn: "#1f6fb2",
	kindFork: "#8a4fbf", kindForkNext: "#8a4fbf", kindAsk: "#c77700", kindTimeout: "#c77700", kindResult: "#2e7d32",
	kindWorkflow: "#6d4c41", kindCap: "#827717",
}

// Mermaid returns g as a Mermaid flowchart: one subgraph per workflow,
// prompt states as boxes, scripts as subroutine boxes, each workflow's end
// as a circle, one arrow style and colour per transition kind, and
// unreachable states in the class "unreachable".
func Mermaid(g lint.Graph) string {
	p := flatten(g)
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	for _, w := range p.workflows {
		fmt.Fprintf(&b, "  subgraph %s[%s]\n", w.id, mermaidText(w.name))
		for _, id := range w.nodes {
			n := p.nodes[p.byID[id]]
			switch {
			case n.end:
				fmt.Fprintf(&b, "    %s((%s))\n", id, mermaidText(n.label))
			case n.script:
				fmt.Fprintf(&b, "    %s[[%s]]\n", id, mermaidText(n.label))
			default:
				fmt.Fprintf(&b, "    %s[%s]\n", id, mermaidText(n.label))
			}
		}
		b.WriteString("  end\n")
	}
	for _, a := range p.arrows {
		to := a.to
		if a.back { // back to the caller: a stadium of its own, not the state again
			to = a.from + "_back([\"caller\"])"
		}
		fmt.Fprintf(&b, "  %s %s|%s| %s\n", a.from, mermaidArrows[a.kind], mermaidText(a.label), to)
	}
	for i, a := range p.arrows {
		fmt.Fprintf(&b, "  linkStyle %d stroke:%s\n", i, colours[a.kind])
	}
	b.WriteString("  classDef script fill:#eef5ee,stroke:#2e7d32\n")
	b.WriteString("  classDef unreachable fill:#eeeeee,stroke:#999999,stroke-dasharray:4 3,color:#777777\n")
	var scripts, unreachable []string
	for _, n := range p.nodes {
		if n.script {
			scripts = append(scripts, n.id)
		}
		if n.unreachable {
			unreachable = append(unreachable, n.id)
		}
	}
	if len(scripts) > 0 {
		fmt.Fprintf(&b, "  class %s script\n", strings.Join(scripts, ","))
	}
	if len(unreachable) > 0 {
		fmt.Fprintf(&b, "  class %s unreachable\n", strings.Join(unreachable, ","))
	}
	return b.String()
}

// mermaidEscape writes the characters a Mermaid label may not hold as
// its entity codes. Mermaid renders a flowchart's labels as HTML: a state
// file named "<img src=x onerror=…>.md" must show as text, not as markup.
var mermaidEscape = strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "\n", " ", "\r", " ", "\t", " ")

// mermaidText quotes s for a Mermaid label.
func mermaidText(s string) string {
	return `"` + mermaidEscape.Replace(s) + `"`
}
