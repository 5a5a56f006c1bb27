package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
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

// requestTimeoutGiven: --request-timeout was given (0 included: no time
// bound, as kubectl reads it), so it bounds every request, the plugin's
// own defaults (version's, AnswerWait) none.
func (o *RootOptions) requestTimeoutGiven() bool {
	if o.running == nil {
		return false
	}
	f := o.running.Root().PersistentFlags().Lookup("request-timeout")
	return f != nil && f.Changed
}

// validateRequestTimeout refuses a --request-timeout client-go cannot read
// (an integer of seconds, or a duration such as 30s) as the bad flag it
// is, before the kubeconfig is blamed for it, and one outside its range
// (rangeRequestTimeout: 0 is no limit, as kubectl reads it).
func (o *RootOptions) validateRequestTimeout() error {
	t := o.ConfigFlags.Timeout
	if t == nil || *t == "" {
		return nil
	}
	n, nerr := strconv.ParseInt(*t, 10, 64)
	d, derr := time.ParseDuration(*t)
	if (nerr == nil && n == 0) || (derr == nil && d == 0) {
		if o.requestTimeoutGiven() {
			// Given as 0: no time bound, as kubectl does; the default
			// (also "0") keeps AnswerWait.
			apiclient.NoAnswerWait()
		}
		return nil
	}
	switch {
	case nerr == nil:
		if n < 0 || n > int64(rangeRequestTimeout.max/time.Second) {
			// Past the range (as seconds, before n*time.Second wraps).
			return rangeRequestTimeout.checkGiven(o.running, -1, *t)
		}
		return rangeRequestTimeout.checkGiven(o.running, time.Duration(n)*time.Second, *t)
	case derr == nil:
		return rangeRequestTimeout.checkGiven(o.running, d, *t)
	}
	return usageErrorf(o.running, "--request-timeout %q is not a duration: give a number and a unit (ms, s, m, h), for example --request-timeout 30s, or 0 for no limit", *t)
}
