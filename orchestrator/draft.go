package orchestrator

import (
	"fmt"

	"raymond/state"
)

// DraftClosedError refuses to drive run id whose draft ws was published or
// discarded, or is being: its worktrees are gone or going, and what it did
// is in the branch it was published into, or nowhere.
func DraftClosedError(id string, ws *state.Workspace) error {
	switch ws.Status {
	case state.DraftPublished:
		return fmt.Errorf("run %s was published into %s, so it cannot go on; start a new run to do more", id, ws.Into)
	case state.DraftDiscarded:
		return fmt.Errorf("run %s was discarded, so it cannot go on; start a new run instead", id)
	case state.DraftPublishing:
		return fmt.Errorf("run %s was being published when it was interrupted, so it cannot go on; finish with raymond publish %s", id, id)
	}
	return fmt.Errorf("run %s was being discarded when it was interrupted, so it cannot go on; finish with raymond discard %s", id, id)
}
