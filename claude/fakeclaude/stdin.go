package fakeclaude

import (
	"io"
	"os"
	"time"
)

// stdinWait is how long an open stdin pipe may stay silent before the fake goes on
// without it, as the real CLI does. Tests shorten it.
var stdinWait = 3 * time.Second

// stdinWarning is printed when stdin stayed silent for stdinWait.
const stdinWarning = "Warning: no stdin data received in 3s, proceeding without it. " +
	"If piping from a slow command, redirect stdin explicitly: < /dev/null to skip, or wait longer."

// readStdin returns what f holds. A nil, closed or character-device f (/dev/null, a
// terminal) holds nothing; a regular file is read whole; a pipe is read to EOF once it
// shows data or EOF within stdinWait, else silent reports the timeout.
func readStdin(f *os.File) (data []byte, silent bool, err error) {
	if f == nil {
		return nil, false, nil
	}
	info, err := f.Stat()
	if err != nil {
		return nil, false, nil // closed: nothing to read
	}
	if info.Mode()&os.ModeCharDevice != 0 {
		return nil, false, nil
	}
	if !info.Mode().IsRegular() {
		ready, err := readable(f, stdinWait)
		if err != nil {
			return nil, false, err
		}
		if !ready {
			return nil, true, nil
		}
	}
	data, err = io.ReadAll(f)
	return data, false, err
}

// composePrompt joins the prompt argument and stdin as the real CLI does: both gives
// "arg\nstdin"; either alone is the prompt.
func composePrompt(arg string, stdin []byte) (string, bool) {
	switch {
	case arg != "" && len(stdin) > 0:
		return arg + "\n" + string(stdin), true
	case arg != "":
		return arg, true
	case len(stdin) > 0:
		return string(stdin), true
	}
	return "", false
}
