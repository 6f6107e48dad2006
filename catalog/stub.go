// Package catalog (stand-in until the real package lands).
package catalog

import "raymond/lint"

// Workflow is a workflow the daemon offers.
type Workflow struct {
	ID                 string         `json:"id"`
	Path               string         `json:"path"`
	Kind               string         `json:"kind"`
	Name               string         `json:"name"`
	Description        string         `json:"description"`
	Entry              string         `json:"entry"`
	Input              Input          `json:"input"`
	DefaultBudget      float64        `json:"default_budget"`
	RequiresHumanInput string         `json:"requires_human_input"`
	Usable             bool           `json:"usable"`
	Errors             []lint.Finding `json:"errors"`
	Warnings           int            `json:"warnings"`
}

// Input is a manifest's input rule.
type Input struct {
	Mode        string `json:"mode"`
	Label       string `json:"label,omitempty"`
	Description string `json:"description,omitempty"`
}

// Catalog is a stand-in.
type Catalog struct{ ch chan struct{} }

// New is a stand-in.
func New(roots []string, log any) (*Catalog, error) { return &Catalog{ch: make(chan struct{})}, nil }

// Watch is a stand-in.
func (c *Catalog) Watch(ctx interface{ Done() <-chan struct{} }) error { <-ctx.Done(); return nil }

// List is a stand-in.
func (c *Catalog) List() []Workflow { return nil }

// Get is a stand-in.
func (c *Catalog) Get(id string) (Workflow, bool) { return Workflow{}, false }

// Changed is a stand-in.
func (c *Catalog) Changed() <-chan struct{} { return c.ch }
