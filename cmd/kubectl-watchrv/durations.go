package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// durationRange is the sane range of one duration flag. Every duration
// flag of every command is checked by check, in its command's Validate
// (the global --request-timeout in the root's), before any request: a
// value outside it is a usage error (exit 2) whose one line names the
// flag, the value as given, the range and the fix. No real use needs a
// value outside; a tiny one would only be misdiagnosed later (a watch
// "never answered" within 1ns).
type durationRange struct {
	flag     string
	min, max time.Duration
	example  string // a value to type, e.g. "30s"
	// zero, when set, is what 0 means: 0 is then accepted (kubectl's
	// --request-timeout 0: no limit).
	zero string
}

// The ranges, one per flag (docs/exit-codes.md lists them).
var (
	rangeProbeInterval  = durationRange{flag: "interval", min: 100 * time.Millisecond, max: time.Hour, example: "5s"}
	rangeProbeDuration  = durationRange{flag: "duration", min: time.Second, max: 24 * time.Hour, example: "1m"}
	rangeProbeWait      = durationRange{flag: "probe-wait", min: 50 * time.Millisecond, max: 30 * time.Second, example: "250ms"}
	rangeTopInterval    = durationRange{flag: "interval", min: minTopInterval, max: maxTopInterval, example: "5s"}
	rangeDeadline       = durationRange{flag: "deadline", min: 100 * time.Millisecond, max: 10 * time.Minute, example: "10s"}
	rangeWatchTimeout   = durationRange{flag: "timeout", min: time.Second, max: 24 * time.Hour, example: "30s"}
	rangeStallTimeout   = durationRange{flag: "stall-timeout", min: time.Second, max: time.Hour, example: "90s"}
	rangeRequestTimeout = durationRange{flag: "request-timeout", min: 100 * time.Millisecond, max: 24 * time.Hour, example: "30s", zero: "no limit"}
)

// String is the range as the flag's --help says it.
func (r durationRange) String() string {
	s := fmt.Sprintf("%s to %s", shortDuration(r.min), shortDuration(r.max))
	if r.zero != "" {
		s += fmt.Sprintf(", or 0 for %s", r.zero)
	}
	return s
}

// help is the flag's usage text with its range.
func (r durationRange) help(usage string) string {
	return fmt.Sprintf("%s (%s)", usage, r)
}

// outside is the one line refusing d, "" when d is in the range. given is
// the value as the user typed it ("" to say d), echoed bounded.
func (r durationRange) outside(d time.Duration, given string) string {
	if (d == 0 && r.zero != "") || (d >= r.min && d <= r.max) {
		return ""
	}
	if given == "" {
		given = shortDuration(d)
	}
	fix := fmt.Sprintf("for example --%s %s", r.flag, r.example)
	if r.zero != "" {
		fix += fmt.Sprintf(", or 0 for %s", r.zero)
	}
	return fmt.Sprintf("--%s %s must be between %s and %s: give %s", r.flag, text.Echo(given), shortDuration(r.min), shortDuration(r.max), fix)
}

// check refuses d outside the range (exit 2). A duration flag's value is
// said as Go's String of it, shortened ("10m", never "10m0s").
func (r durationRange) check(cmd *cobra.Command, d time.Duration) error {
	return r.checkGiven(cmd, d, "")
}

// checkGiven is check of a value given as the string given (a string flag
// such as kubectl's --request-timeout).
func (r durationRange) checkGiven(cmd *cobra.Command, d time.Duration, given string) error {
	msg := r.outside(d, given)
	if msg == "" {
		return nil
	}
	path := "kubectl watchrv"
	if cmd != nil {
		path = cmd.CommandPath()
	}
	return withCode(ExitUsage, fmt.Errorf("%s (see '%s --help')", msg, path))
}
