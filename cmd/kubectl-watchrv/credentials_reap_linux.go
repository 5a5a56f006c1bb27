package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// stopAbandonedPlugin ends the credential plugin this process gave up on,
// and every process it started: client-go starts the plugin with no way to
// stop it, and a plugin that hangs would outlive the run. The plugin is
// this process's child whose name is the plugin's (the kernel keeps 15
// bytes of a name); it and its descendants get SIGKILL, as a plugin that
// gave no answer in time gets nothing else from this run. Returns how
// many processes were stopped.
func stopAbandonedPlugin(command string) int {
	name := filepath.Base(command)
	if len(name) > 15 {
		name = name[:15]
	}
	procs := processes()
	stop := map[int]bool{}
	for pid, p := range procs {
		if p.ppid == os.Getpid() && p.comm == name {
			stop[pid] = true
		}
	}
	// Descendants: whoever has a parent to stop, until none is added.
	for added := len(stop) > 0; added; {
		added = false
		for pid, p := range procs {
			if !stop[pid] && stop[p.ppid] {
				stop[pid], added = true, true
			}
		}
	}
	stopped := 0
	for pid := range stop {
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			stopped++
		}
	}
	return stopped
}

type process struct {
	ppid int
	comm string
}

// processes reads every process's parent and name from /proc.
func processes() map[int]process {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	out := make(map[int]process, len(dirs))
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		s := string(b)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		fields := strings.Fields(s[close+1:])
		if len(fields) < 2 {
			continue
		}
		ppid, err := strconv.Atoi(fields[1])
		if err != nil {
			continue
		}
		out[pid] = process{ppid: ppid, comm: s[open+1 : close]}
	}
	return out
}
