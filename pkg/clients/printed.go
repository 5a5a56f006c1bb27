package clients

import (
	"strings"
	"time"
)

// Placeholders for a field the log leaves empty. Each is in parentheses,
// and no value from the log is printed as one: shown quotes a value that
// could be read as a placeholder (a user may be named "(unauthenticated)":
// adversary try 20 #12).
const (
	// noUser: the log names no user for a request whose credentials were
	// refused (401).
	noUser         = "(unauthenticated)"
	noAgent        = "(no user agent)"
	noSourceIP     = "(no source IP)"
	noResource     = "(no resource or path)"
	otherResources = "(other resources)"
)

// shown is a field of the log as clients prints it (a client's name, a
// resource): missing when the log leaves it empty; quoted, with \" and \\
// for a quote and a backslash, when it could be read as something else:
// a placeholder or a quoted value (it starts with "(" or a quote), the
// " / " between a client's fields, the ", " between the clients of a herd,
// an escape of the printer (a backslash), or white space at its ends.
// Every other value is printed as it is, so that each printed name stands
// for one value of the log. -o json keeps the raw fields beside it.
func shown(v, missing string) string {
	if v == "" {
		return missing
	}
	if v[0] != '(' && v[0] != '"' && !strings.Contains(v, `\`) && !strings.Contains(v, " /") &&
		!strings.Contains(v, "/ ") && !strings.Contains(v, ", ") && strings.TrimSpace(v) == v {
		return v
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		if v[i] == '"' || v[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(v[i])
	}
	b.WriteByte('"')
	return b.String()
}

// Span is how clients prints a time range, everywhere (the header, the
// chart, the evidence of a pattern): in UTC, with the date always, and the
// date of its end too when it falls on another day. A time of day alone
// says nothing of a log that spans days ("09:36 to 09:36 UTC" for a 47 h
// log: adversary try 20 #12).
func Span(from, to time.Time) string {
	from, to = from.UTC(), to.UTC()
	const day, clock = "2006-01-02 ", "15:04:05"
	end := to.Format(clock)
	if from.Format(day) != to.Format(day) {
		end = to.Format(day + clock)
	}
	return from.Format(day+clock) + " to " + end + " UTC"
}
