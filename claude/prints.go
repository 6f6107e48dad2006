package claude

import "raymond/parsing"

// newPrintScanner returns the scanner that finds <print> payloads across all
// the assistant text of one step.
func newPrintScanner() printFeeder { return parsing.NewPrintScanner() }
