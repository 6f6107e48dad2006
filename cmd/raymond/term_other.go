//go:build !linux

package main

import "os"

// isTerminalFile reports whether f is a terminal, taken as a character
// device.
func isTerminalFile(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
