//go:build !linux

package main

// stopAbandonedPlugin: only Linux gives a process its descendants (/proc)
// and makes it their subreaper without cgo; elsewhere a plugin that gave no answer is left to end on its
// own (the error says so).
func stopAbandonedPlugin(string) int { return -1 }

// adoptOrphans: nothing to do where stopAbandonedPlugin stops nothing.
func adoptOrphans() {}

// pluginProcesses: not known where stopAbandonedPlugin stops nothing.
func pluginProcesses() []int { return nil }

// noteAnswered: nothing to note where no process is stopped.
func noteAnswered() {}
