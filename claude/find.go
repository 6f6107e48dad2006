package claude

// Find returns the absolute path of the claude executable name ("" means
// claude) as a step would start it: a bare name is looked up in PATH, a
// path must name an executable file. Its error wraps [ErrNotFound] when
// there is none, and says how to install claude or name another. raymond
// calls it before it creates a run, so that no run is made only to be left
// paused for want of claude.
func Find(name string) (string, error) { return lookExecutable(name) }
