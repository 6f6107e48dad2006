package server

import "net/http"

// Page is a stand-in until the page lands.
func Page() http.Handler { return nil }
