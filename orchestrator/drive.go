package orchestrator

import (
	"context"
	"errors"

	"raymond/state"
)

func (d *Driver) drive(ctx context.Context, id string, update func(*state.Run) error) (*state.Run, error) {
	return nil, errors.New("not implemented yet")
}
