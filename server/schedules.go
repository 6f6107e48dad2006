package server

import (
	"net/http"

	"raymond/daemon"
)

// schedules answers GET /api/v1/schedules.
func (s *Server) schedules(w http.ResponseWriter, r *http.Request) {
	list := []daemon.ScheduleStatus{}
	if s.cfg.Schedules != nil {
		list = s.cfg.Schedules.List()
	}
	writeJSON(w, http.StatusOK, map[string]any{"schedules": list})
}
