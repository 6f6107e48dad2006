package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"raymond/diagram"
	"raymond/lint"
	"raymond/workflow"
)

var diagramHelp = help{
	name:  "diagram",
	usage: "raymond diagram PATH [--mermaid | --html FILE]",
	text: `
Draw the static graph of a workflow without running it: its states (scripts
drawn differently from prompts), every transition with its own style (goto,
reset, call and function with their return, fork and its next, ask and its
timeout, result), the workflows it reaches through cross-workflow tags, and
the states nothing reaches, marked unreachable. PATH is what 'raymond run'
takes: a workflow folder, a state in it, a YAML or zip file.

--mermaid (the default) prints a Mermaid flowchart. --html FILE writes one
self-contained HTML page ('-': stdout) that loads nothing from the network:
the graph as an SVG, and each state's prompt shown when it is clicked.

Exit status: 0 drawn, 2 bad usage (a flag, a PATH that names no workflow).`,
	examples: []string{
		"raymond diagram wf/ > wf.mmd",
		"raymond diagram wf/ --html wf.html",
	},
}

func runDiagram(_ context.Context, env *cmdEnv, args []string) error {
	flags := newFlagSet("diagram")
	flags.Bool("mermaid", false, "print a Mermaid flowchart (the default)")
	htmlFile := flags.String("html", "", "write a self-contained HTML page to `FILE` ('-': stdout)")
	if done, err := parseFlags(flags, args, diagramHelp, env.stdout); done || err != nil {
		return err
	}
	if flags.Changed("html") && *htmlFile == "" {
		return diagramHelp.usageError("--html needs a FILE to write ('-': stdout)")
	}
	if flags.Changed("mermaid") && *htmlFile != "" {
		return diagramHelp.usageError("give --mermaid or --html, not both")
	}
	if flags.NArg() != 1 {
		return diagramHelp.usageError("give one workflow PATH")
	}
	path := flags.Arg(0)
	ss := workflow.NewScopes(lintFetcher([]string{path}))
	defer ss.Close()
	g, err := lint.BuildGraph(ss, path)
	if err != nil {
		return &usageError{msg: err.Error(), hint: "Give a workflow folder, a state file, or a YAML or zip workflow."}
	}
	if err := drawable(path, g); err != nil {
		return err
	}
	if *htmlFile == "" {
		_, err := io.WriteString(env.stdout, diagram.Mermaid(g))
		return err
	}
	page := diagram.HTML(g, "Workflow "+path)
	if *htmlFile == "-" {
		_, err := io.WriteString(env.stdout, page)
		return err
	}
	if err := os.WriteFile(*htmlFile, []byte(page), 0o644); err != nil {
		return &usageError{msg: fmt.Sprintf("--html: %v", err), hint: "Give a file in a folder that exists and can be written."}
	}
	return nil
}

// drawable returns a usage error when g has no state to draw: path is no
// workflow (an empty folder, a folder of workflows, a file that does not
// parse). The error names what lint found.
func drawable(path string, g lint.Graph) error {
	for _, w := range g.Workflows {
		if len(w.States) > 0 {
			return nil
		}
	}
	msg := path + " has no states to draw"
	for _, f := range g.Findings {
		if f.Severity == lint.Error {
			msg += ": " + f.Message
			break
		}
	}
	return &usageError{msg: msg, hint: "Give a workflow folder, a state file, or a YAML or zip workflow ('raymond lint " + path + "' says more)."}
}
