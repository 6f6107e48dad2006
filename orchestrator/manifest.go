package orchestrator

import (
	"fmt"
	"strings"

	"raymond/parsing"
	"raymond/workflow"
)

// checkManifest applies the starting scope's manifest to a new run
// (protocol §17): its input rule and whether the workflow may
// ask under --on-ask reject (§15.3); Scopes.Start refused a backend other
// than claude already. It returns the run's budget: the one
// given, else the manifest's default_budget, else the config's.
func checkManifest(scope *workflow.Scope, n *NewRun) (float64, error) {
	m := scope.Manifest()
	budget := n.BudgetUSD
	if m == nil {
		return budget, checkAsks(scope, nil, n.OnAsk)
	}
	input := n.Options.Input
	switch m.Input.Mode {
	case "required":
		if input == nil || strings.TrimSpace(*input) == "" {
			return 0, fmt.Errorf("%s needs an input%s; give it with --input TEXT", scope.Dir(), inputHelp(m))
		}
	case "none":
		if input != nil {
			return 0, fmt.Errorf("%s takes no input (its manifest says input.mode: none); run it without --input", scope.Dir())
		}
	}
	if !n.BudgetGiven && m.DefaultBudget > 0 {
		budget = m.DefaultBudget
	}
	limits(m.Limits, n)
	return budget, checkAsks(scope, m, n.OnAsk)
}

// limits applies the manifest's max_turns, loop_warn and loop_stop to a
// new run, as defaults that replace the config's: max_turns unless
// --max-turns was given (loop_warn and loop_stop have no flag).
func limits(l workflow.Limits, n *NewRun) {
	if l.MaxTurns != nil && !n.MaxTurnsGiven {
		n.Options.MaxTurns = *l.MaxTurns
	}
	if l.LoopWarn != nil {
		n.Options.LoopWarn = *l.LoopWarn
	}
	if l.LoopStop != nil {
		n.Options.LoopStop = *l.LoopStop
	}
}

// inputHelp is what a manifest says about its input, for a message.
func inputHelp(m *workflow.Manifest) string {
	var parts []string
	for _, s := range []string{m.Input.Label, m.Input.Description} {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ": ") + ")"
}

// checkAsks refuses, under --on-ask reject, a workflow that can ask: its
// manifest says requires_human_input: true or, when it says nothing (or
// auto), a state of the scope allows ask in its policy.
func checkAsks(scope *workflow.Scope, m *workflow.Manifest, onAsk string) error {
	if onAsk != AskReject {
		return nil
	}
	rule := ""
	if m != nil {
		rule = m.RequiresHumanInput
	}
	switch rule {
	case "false":
		return nil
	case "true":
		return fmt.Errorf("%s asks a person for input (requires_human_input: true), and --on-ask reject refuses such workflows; use --on-ask pause or prompt", scope.Dir())
	}
	states, err := scope.States()
	if err != nil {
		return err
	}
	for _, name := range states {
		st, err := scope.Load(name)
		if err != nil {
			continue // a broken state fails its agent when reached
		}
		for _, r := range st.Policy.Rules {
			if r.Tag == parsing.Ask {
				return fmt.Errorf("%s can ask a person for input (%s allows <ask>), and --on-ask reject refuses such workflows; use --on-ask pause or prompt",
					scope.Dir(), name)
			}
		}
	}
	return nil
}
