package server

import (
	"net/http"
	"strings"

	"raymond/workspace"
)

// PublishRequest is the body of POST /api/v1/runs/{id}/publish.
type PublishRequest struct {
	// Squash makes one commit of the draft's changes.
	Squash bool `json:"squash"`
	// Into is the branch to publish into; "" is the one the run started
	// from.
	Into string `json:"into"`
}

func (s *Server) diff(w http.ResponseWriter, r *http.Request) {
	id, ok := s.runID(w, r)
	if !ok {
		return
	}
	d, err := s.d.Diff(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

func (s *Server) publish(w http.ResponseWriter, r *http.Request) {
	id, ok := s.runID(w, r)
	if !ok {
		return
	}
	var req PublishRequest
	if !decode(w, r, &req, true) {
		return
	}
	if req.Into != "" && strings.TrimSpace(req.Into) == "" {
		writeError(w, http.StatusBadRequest, "invalid", "into must name a branch, or be left out for the branch the run started from")
		return
	}
	p, err := s.d.Publish(r.Context(), id, workspace.PublishOptions{Squash: req.Squash, Into: req.Into})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

func (s *Server) discard(w http.ResponseWriter, r *http.Request) {
	id, ok := s.runID(w, r)
	if !ok {
		return
	}
	d, err := s.d.Discard(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}
