// Package proc holds what the runners of steps that start processes share
// (raymond/claude for `claude -p`, raymond/script for script states): the
// process attributes that put a step's process in a group of its own, the
// killer that stops that group (SIGTERM, then SIGKILL after a grace period),
// the watchdog of an idle timeout, the sweep of the processes that carry a
// step's marker, and the names of the signals a process dies of.
package proc
