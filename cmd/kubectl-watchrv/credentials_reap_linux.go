package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER: the processes
// this process's children leave behind (a plugin that forks and exits)
// become its own children, not init's, so that they can be stopped too.
const prSetChildSubreaper = 36

// adoptOrphans makes this process the subreaper of what it starts; called
// before the credential plugin runs.
func adoptOrphans() {
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
}

// stopAbandonedPlugin ends the credential plugin this process gave up on,
// and every process it started: client-go starts the plugin with no way to
// stop it, and a plugin that hangs would outlive the run. The plugin is
// the only program this process runs, so every descendant of it (the
// plugin under any name, after an exec; what it forked, adopted as an
// orphan by adoptOrphans) is the plugin's: each gets SIGKILL, as a plugin
// that gave no answer in time gets nothing else from this run. Returns how
// many processes were stopped.
func stopAbandonedPlugin(string) int {
	// First every descendant is frozen (SIGSTOP), then killed: a process
	// killed while its parent still runs lets the parent react (a shell
	// prints "Killed" on the user's terminal, a supervisor restarts it).
	// A plugin may fork while it is being frozen: scan and stop again
	// until every live descendant is stopped (a bounded number of passes).
	frozen := map[int]bool{}
	for pass := 0; pass < 50; pass++ {
		procs := processes()
		running := 0
		for _, pid := range descendants(procs) {
			if !procs[pid].stopped {
				running++
				if syscall.Kill(pid, syscall.SIGSTOP) == nil {
					frozen[pid] = true
				}
			}
		}
		if running == 0 {
			break
		}
		// SIGSTOP is delivered asynchronously: give it a moment before
		// the next scan reads the states.
		time.Sleep(time.Millisecond)
	}
	killed := map[int]bool{}
	for pass := 0; pass < 50; pass++ {
		live := descendants(processes())
		if len(live) == 0 {
			break
		}
		for _, pid := range live {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed[pid] = true
			}
		}
		time.Sleep(time.Millisecond)
	}
	return len(killed)
}

// pluginProcesses are the live processes of the credential plugin: every
// descendant of this process (the plugin is the only program it runs).
func pluginProcesses() []int { return descendants(processes()) }

// pluginSince is the start time (clock ticks since boot, /proc/PID/stat)
// from which a descendant can be the plugin's: this process's own start
// (a job the shell started before it and left to it through exec is not
// the plugin's), then, once the plugin answered, that moment (what its
// first run left running, such as a browser it opened, is not a re-run).
var pluginSince atomic.Int64

func init() { pluginSince.Store(startTicks(os.Getpid())) }

// noteAnswered moves pluginSince to now: only re-runs started from now on
// can be stopped.
func noteAnswered() {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return
	}
	if up, err := strconv.ParseFloat(f[0], 64); err == nil {
		pluginSince.Store(int64(up * clockTicks))
	}
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat's times:
// 100 on every Linux platform Go supports.
const clockTicks = 100

// startTicks is a process's start time (0 when not known).
func startTicks(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 {
		return 0
	}
	t, _ := strconv.ParseInt(fields[19], 10, 64)
	return t
}

// descendants are this process's live (not zombie) descendants that
// started at or after pluginSince.
func descendants(procs map[int]process) []int {
	in := map[int]bool{os.Getpid(): true}
	for added := true; added; {
		added = false
		for pid, p := range procs {
			if !in[pid] && in[p.ppid] {
				in[pid], added = true, true
			}
		}
	}
	var live []int
	since := pluginSince.Load()
	for pid := range in {
		if pid != os.Getpid() && !procs[pid].zombie && procs[pid].start >= since {
			live = append(live, pid)
		}
	}
	return live
}

type process struct {
	ppid    int
	zombie  bool
	stopped bool // state T (stopped by a signal) or t (traced)
	start   int64
}

// processes reads every process's parent and state from /proc.
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
		close := strings.LastIndexByte(s, ')')
		if close < 0 {
			continue
		}
		fields := strings.Fields(s[close+1:])
		if len(fields) < 20 {
			continue
		}
		start, _ := strconv.ParseInt(fields[19], 10, 64)
		if ppid, err := strconv.Atoi(fields[1]); err == nil {
			out[pid] = process{ppid: ppid, zombie: fields[0] == "Z", stopped: fields[0] == "T" || fields[0] == "t", start: start}
		}
	}
	return out
}
