package daemon

import (
	"raymond/orchestrator"
	"raymond/state"
	"raymond/step"
)

// Runners makes the runners of one run answered from the replies file
// path (absolute): a scripted runner of its own, read afresh so that runs
// never take each other's replies, told the run's workflow (scope), and
// the runner of script states it scripts.
type Runners func(path, scope string) (runner, scripts step.Runner, err error)

// runners gives drv the runners of run r, before anything of it runs: the
// daemon's replies file (Config.Replies) or else the one r is stored with
// answer its steps, each run from a runner of its own; else the daemon's
// Runner does. A run driven with scripted replies whose file is not stored
// (made by an older raymond) is not handed to claude.
func (d *Daemon) runners(drv *orchestrator.Driver, r *state.Run) error {
	path := d.cfg.Replies
	if path == "" {
		path = r.Options.Replies
	}
	switch {
	case path != "" && d.cfg.Scripted != nil:
		runner, scripts, err := d.cfg.Scripted(path, r.ScopeDir)
		if err != nil {
			return errorf(ErrConflict, "run %s is answered from the replies file %s, which cannot be read: %v; put it back, or resume the run from the command line with --replies FILE",
				r.WorkflowID, path, err)
		}
		drv.Runner, drv.Scripts = d.gate.Runner(runner), scripts
		r.Options.Scripted, r.Options.Replies = true, path
	case r.Options.Scripted:
		return errorf(ErrConflict, "run %s was driven with scripted replies, which it does not name; the daemon does not hand it to claude: resume it from the command line with --replies FILE",
			r.WorkflowID)
	}
	return nil
}
