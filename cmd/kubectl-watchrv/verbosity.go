package main

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"

	"github.com/spf13/pflag"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// The levels of -v, as kubectl users type them.
const (
	// verbosityRequests: every request the run sends, with its status, its
	// time and the bytes read (kubectl's -v=6). Bare -v means it.
	verbosityRequests = 6
	maxVerbosity      = 10
)

const verbosityUsage = "Show on stderr what the command does: -v (or -v=6 and up, as kubectl's) every request sent, discovery and /metrics included, with its status, time and bytes read, and the command's own steps (list: each page and retry; watch: each watch and list; probe: every probe); -v=1 to 5 the steps only"

// verbosity is the value of -v: a level from 0 to 10, as kubectl's -v=N,
// and a bare -v as 6.
type verbosity struct{ o *RootOptions }

func (v verbosity) String() string { return strconv.Itoa(v.o.Verbosity) }
func (v verbosity) Type() string   { return "level" }

func (v verbosity) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > maxVerbosity {
		return fmt.Errorf("%q is not a verbosity level: use -v (every request), or -v=N with N from 0 to %d (6 and up: every request, as kubectl's -v=6)", s, maxVerbosity)
	}
	v.o.Verbosity, v.o.Verbose = n, n >= 1
	return nil
}

// addVerbosityFlags adds -v/--verbose to every command, and kubectl's own
// spelling --v (hidden), both the same value.
func (o *RootOptions) addVerbosityFlags(fs *pflag.FlagSet) {
	f := fs.VarPF(verbosity{o}, "verbose", "v", verbosityUsage)
	f.NoOptDefVal = strconv.Itoa(verbosityRequests)
	k := fs.VarPF(verbosity{o}, "v", "", verbosityUsage)
	k.NoOptDefVal = f.NoOptDefVal
	k.Hidden = true
}

// verbosityArgs lets -v take its level the ways kubectl's does: -v=6,
// -v 6, -v6, --v=6, --v 6. pflag alone would read "-v 6" as a bare -v and
// 6 as an argument (a NAME), and -v6 as -v and an unknown flag -6.
// Nothing after "--" is touched.
func verbosityArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if m := attachedLevel.FindStringSubmatch(a); m != nil {
			out = append(out, "-v="+m[1])
			continue
		}
		if (a == "-v" || a == "--v" || a == "--verbose") && i+1 < len(args) && level.MatchString(args[i+1]) {
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

var (
	level         = regexp.MustCompile(`^[0-9]{1,2}$`)
	attachedLevel = regexp.MustCompile(`^-v([0-9]{1,2})$`)
)

// traceRequests shows every request of the ledger at -v=6 and up, through
// the one writer (render), one line at a time.
func (o *RootOptions) traceRequests() {
	var mu sync.Mutex
	o.ledger.Observe(func(e apiclient.Entry) {
		if o.Verbosity < verbosityRequests {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		o.Printer(outputChoice{}).RequestLine(e)
	})
}
