// Package scripted runs steps without a model: each state's replies come in
// order from a replies file.
package scripted
