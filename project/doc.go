// Package project is what raymond knows of a project's .raymond folder, for
// the command line and for anything else that serves a project's runs (a
// daemon): finding the project (Find), opening it (Open), the layout of
// .raymond/ (StateDir, DebugDir, ConfigPath), its config.toml (LoadConfig),
// the merge of the settings a caller gives with the config and the defaults
// into a run's options (NewOptions, Override), and the runs as callers show
// them, with their JSON shapes (Listing, Summary, Detail) and exit statuses
// (ExitFor).
//
// The layout of a project in dir:
//
//	dir/.raymond/config.toml   defaults for the settings (optional)
//	dir/.raymond/state/        one state file per run (package state)
//	dir/.raymond/debug/ID/     the transcript of run ID (package transcript)
//
// Find lives here rather than in package state: state knows one folder of
// runs wherever it is, while which folder holds .raymond (the nearest one,
// bounded by the git repository) is a fact about projects.
package project
