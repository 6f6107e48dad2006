// Package diagram draws the static graph of a workflow (lint.BuildGraph):
// as Mermaid flowchart text, and as one self-contained HTML page with an
// inline SVG laid out in layers and each state's prompt a click away; and
// as that SVG alone with a run drawn over it (SVG and Overlay), for the
// transcript report.
package diagram
