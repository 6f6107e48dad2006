// Package catalog is the workflows a daemon offers: every workflow under
// the daemon's roots, with its manifest and its lint, kept current while
// Watch runs.
//
// What counts as a workflow is what raymond lint finds in a folder
// (workflow.Find): a folder with an entry state (1_START or START, .md or
// .sh, or one in its states/ folder) or a workflow.yaml; a YAML workflow
// file (.yaml or .yml with a top-level states: key, not a .test.yaml); a
// .zip archive. Hidden files and folders, node_modules, vendor and
// testdata are passed over, and a workflow's own subfolders are not looked
// in. A root that is itself a workflow is the one workflow of that root.
//
// Each workflow is listed with its manifest (name, falling back to the
// folder's or file's name; description; input; default budget;
// requires_human_input), its entry state, and the findings of lint.Check:
// its errors in full and its count of warnings. A workflow with no error
// is usable. One that does not even open (a bad zip, no entry state, a
// manifest that does not parse) is listed with an error saying so, never
// left out.
//
// IDs. A workflow's ID is its path relative to its root, with slashes, and
// without the extension of a YAML or zip file: review, tools/triage. A
// root that is a workflow has its folder's base name as ID. When two roots
// give the same ID, each of those workflows is prefixed with its root's
// base name (made unique among the roots with -2, -3…): ops/review and
// team/review. When a folder and a file of one root share a stem (review/
// and review.yaml), the file keeps its extension: review.yaml. Any other
// clash gets ~2, ~3… in path order. An ID never contains "..": a name with
// it has each ".." written "._". IDs are meant for a URL path segment once
// escaped (url.PathEscape turns the slashes into %2F).
//
// Live reload. Watch watches every folder under the roots with fsnotify
// (which is not recursive: folders are added as they appear and dropped as
// they go), and the folder each root is in, so that a root removed and
// made again is followed. It gathers the events of a burst (an editor's
// save is several: a write, or a new file renamed over the old one) until
// 100 ms pass without one, or 1 s since the first. Then it looks again
// only where something changed: the workflow a changed file belongs to, or
// else the folder the change happened in, which may have become a workflow
// or hold a new one. A workflow is linted again when an event named one of
// its files, when its files' names, sizes, modes or times changed, or when
// it reaches through a cross-workflow tag a workflow that changed; a
// broken workflow is linted again whenever a workflow appears or goes, as
// it may have named it. Changes to workflows outside the roots that a
// workflow reaches are not seen. After each change Changed's channel is
// closed and replaced.
package catalog
