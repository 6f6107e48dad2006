package script

import (
	"context"
	"testing"

	"raymond/step"
)

// prompts stands for the claude runner.
type prompts struct{ ran int }

func (p *prompts) Run(context.Context, step.Request, step.Handler) step.Result {
	p.ran++
	return step.Result{Outcome: step.Succeeded, Text: "from the model"}
}

func (*prompts) Name() string { return "claude" }

// TestOr: script steps run as scripts, others go to the prompts' runner.
func TestOr(t *testing.T) {
	p := &prompts{}
	r := (&Runner{}).Or(p)
	eq(t, "name", step.RunnerName(r), "claude")

	res := r.Run(t.Context(), request(t, "echo from the script"), step.Handler{})
	eq(t, "script step", res.Text, "from the script\n")
	eq(t, "script step's Runner", res.Runner, "script")
	eq(t, "prompt steps run", p.ran, 0)

	req := request(t, "")
	req.Script = nil
	eq(t, "prompt step", r.Run(t.Context(), req, step.Handler{}).Text, "from the model")
	eq(t, "prompt steps run", p.ran, 1)
	eq(t, "prompt step's argv", r.(step.Describer).Argv(req), []string(nil))
	_, ok := r.(step.Salvager).Salvage(req, nil)
	eq(t, "salvaged without a salvager", ok, false)
}
