// Package prompts loads the states of a workflow and decides what one step's
// output means, as ../shared/spec/protocol.md §2, §6 and §7 define it.
//
// A workflow is a folder, the scope. Entry finds the scope and the first state
// from what the user typed; Resolve turns a target written in a tag ("REVIEW")
// into the state's file name in the scope ("REVIEW.md"), refusing names that
// are unsafe, ambiguous or lead outside the scope; Load reads a markdown state
// and its YAML frontmatter policy.
//
// A Policy is the frontmatter's allowed_transitions plus model, effort and
// force_implicit. Decide combines the tag parser (package parsing), the policy
// and the scope's files into the transition one step asks for, or a typed
// error; Reminder turns such an error into the short message that asks the
// model again. Render fills {{name}} placeholders in a prompt in one pass.
package workflow
