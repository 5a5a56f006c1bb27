package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Every duration flag's range: a value below, above or negative is refused
// with one line naming the flag, the value, the range and a fix; a value
// in it (and 0 where 0 means something) is accepted.
func TestDurationRanges(t *testing.T) {
	all := []durationRange{rangeProbeInterval, rangeProbeDuration, rangeProbeWait, rangeTopInterval, rangeDeadline, rangeWatchTimeout, rangeStallTimeout, rangeRequestTimeout}
	for _, r := range all {
		if r.min <= 0 || r.max <= r.min || r.example == "" {
			t.Fatalf("--%s: range %v", r.flag, r)
		}
		ex, err := time.ParseDuration(r.example)
		if err != nil || r.outside(ex, "") != "" {
			t.Fatalf("--%s: example %q is not in its range %v", r.flag, r.example, r)
		}
		for _, d := range []time.Duration{r.min, r.max, (r.min + r.max) / 2} {
			if msg := r.outside(d, ""); msg != "" {
				t.Fatalf("--%s %s refused: %s", r.flag, d, msg)
			}
		}
		for _, d := range []time.Duration{time.Nanosecond, -time.Second, r.min - time.Nanosecond, r.max + time.Nanosecond, 1000 * time.Hour} {
			msg := r.outside(d, "")
			want := []string{"--" + r.flag + " " + shortDuration(d) + " ", "must be between " + shortDuration(r.min) + " and " + shortDuration(r.max), "for example --" + r.flag + " " + r.example}
			for _, w := range want {
				if !strings.Contains(msg, w) {
					t.Fatalf("--%s %s: %q does not say %q", r.flag, d, msg, w)
				}
			}
			if strings.Contains(msg, "\n") || strings.Contains(msg, "0s ") || strings.Contains(msg, "m0s") {
				t.Fatalf("--%s %s: %q", r.flag, d, msg)
			}
			err := r.check(nil, d)
			var e *exitError
			if !errors.As(err, &e) || e.code != ExitUsage {
				t.Fatalf("--%s %s: %v is not a usage error", r.flag, d, err)
			}
		}
		if r.zero == "" && r.outside(0, "") == "" {
			t.Fatalf("--%s 0 accepted", r.flag)
		}
	}
	if rangeRequestTimeout.outside(0, "0") != "" {
		t.Fatal("--request-timeout 0 (no limit) refused")
	}
	// The value is said as given.
	if msg := rangeRequestTimeout.outside(time.Nanosecond, "1ns"); !strings.Contains(msg, "--request-timeout 1ns ") {
		t.Fatal(msg)
	}
	if got := rangeRequestTimeout.help("How long"); got != "How long (100ms to 24h, or 0 for no limit)" {
		t.Fatal(got)
	}
}
