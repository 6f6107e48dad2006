// Package workflow loads the states of a workflow and decides what one step's
// output means, as ../shared/spec/protocol.md §2, §6 and §7 define it.
//
// A workflow is a Scope: the states of one folder, read through an fs.FS. A
// folder is opened with OpenDir, through an os.Root, so that nothing outside
// it can be read; a zip archive or a workflow written as one YAML file can
// give a Scope over a file system of their own (NewScope). Entry opens the
// scope and finds the first state from what the user typed; Scope.Resolve
// turns a target written in a tag ("REVIEW") into the state's file name in
// the scope ("REVIEW.md"), refusing names that are unsafe, ambiguous or lead
// outside the scope; Scope.Load reads a markdown state and its YAML
// frontmatter policy. Whoever opens a Scope closes it; one Scope serves a
// whole run, from any goroutine.
//
// A Policy is the frontmatter's allowed_transitions plus model, effort and
// force_implicit. Decide combines the tag parser (package parsing), the policy
// and the scope's files into the transition one step asks for, or a typed
// error; Reminder turns such an error into the short message that asks the
// model again. Render fills {{name}} placeholders in a prompt in one pass.
package workflow
