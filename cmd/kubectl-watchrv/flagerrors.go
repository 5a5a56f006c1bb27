package main

import (
	"errors"
	"fmt"
	"github.com/spf13/cobra"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// flagError is the one line of a flag the parser refused: it names the
// flag, echoes the value bounded, and says what to type, in the plugin's
// words; never the parser's ("strconv.ParseUint: parsing "-1": invalid
// syntax", "time: invalid duration").
func flagError(err error) error {
	var invalid *pflag.InvalidValueError
	var missing *pflag.ValueRequiredError
	switch {
	case errors.As(err, &invalid):
		return errors.New(invalidFlagValue(invalid.GetFlag(), invalid.GetValue(), invalid.Unwrap()))
	case errors.As(err, &missing):
		f := missing.GetFlag()
		return fmt.Errorf("--%s needs a value: %s", f.Name, example(f))
	}
	// Unknown flags and bad syntax: pflag's words name the flag; a
	// huge value it quotes whole is bounded.
	return errors.New(text.Shorten(err.Error(), 512))
}

func invalidFlagValue(f *pflag.Flag, value string, cause error) string {
	name := "--" + f.Name
	v := strconv.Quote(text.Echo(value))
	if errors.Is(cause, strconv.ErrRange) {
		return fmt.Sprintf("%s %s is out of range: %s", name, v, example(f))
	}
	switch kind := f.Value.Type(); {
	case kind == "bool":
		return fmt.Sprintf("%s=%s is not true or false: give %s alone (true) or %s=false", name, v, name, name)
	case kind == "duration":
		return fmt.Sprintf("%s %s is not a duration: %s", name, v, example(f))
	case strings.HasPrefix(kind, "uint"):
		return fmt.Sprintf("%s %s is not a whole number (digits only, no sign): %s", name, v, example(f))
	case strings.HasPrefix(kind, "int"):
		return fmt.Sprintf("%s %s is not a whole number: %s", name, v, example(f))
	case strings.HasPrefix(kind, "float"):
		return fmt.Sprintf("%s %s is not a number: %s", name, v, example(f))
	}
	if cause != nil && !errors.Is(cause, strconv.ErrSyntax) {
		// A value of the plugin's own type (-v, --watch-cache) says
		// in its Set what it takes: keep its words, bounded.
		return fmt.Sprintf("%s: %s", name, text.Shorten(text.OneLine(cause.Error()), 512))
	}
	return fmt.Sprintf("%s %s is not a value it takes: see %s in --help", name, v, name)
}

// example says what to type for f, from its type and default.
func example(f *pflag.Flag) string {
	name, def := "--"+f.Name, f.DefValue
	switch kind := f.Value.Type(); {
	case kind == "duration":
		if def == "" || def == "0s" {
			def = "30s"
		}
		return fmt.Sprintf("give a number and a unit (ms, s, m, h), for example %s %s", name, def)
	case strings.HasPrefix(kind, "int"), strings.HasPrefix(kind, "uint"):
		if def == "" || def == "0" {
			def = "10"
		}
		return fmt.Sprintf("give a whole number such as %s %s", name, def)
	case strings.HasPrefix(kind, "float"):
		if def == "" || def == "0" {
			def = "5"
		}
		return fmt.Sprintf("give a number such as %s %s", name, def)
	}
	return fmt.Sprintf("see %s in --help", name)
}

// parseErrorAsUsage is the one rule for what cobra returns itself, before
// any command's own checks: a flag it could not parse on the way to the
// subcommand (TraverseChildren parses the root's flags first, and cobra
// then returns pflag's error as it is, without the FlagErrorFunc) is bad
// input, told as every other bad flag (exit 2, the fix, no Go parser
// text). Any other error is returned unchanged.
func parseErrorAsUsage(root *cobra.Command, err error) error {
	var coded *exitError
	if err == nil || errors.As(err, &coded) {
		return err
	}
	var invalid *pflag.InvalidValueError
	var missing *pflag.ValueRequiredError
	var unknown *pflag.NotExistError
	var syntax *pflag.InvalidSyntaxError
	if errors.As(err, &invalid) || errors.As(err, &missing) || errors.As(err, &unknown) || errors.As(err, &syntax) {
		return usageErrorf(root, "%v", flagError(err))
	}
	return err
}

// noArgs refuses arguments as bad input (exit 2), naming the first.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf(cmd, "%q: %s takes no arguments", args[0], cmd.CommandPath())
	}
	return nil
}

// kubectlHabit is what to type instead of a kubectl flag this command does
// not take, typed by reflex ("" for any other error): list -w / --watch
// (kubectl get -w) is the watch command (fresh user try 19: "unknown
// shorthand flag: 'w' in -w", no hint).
func kubectlHabit(c *cobra.Command, err error) string {
	msg := err.Error()
	watchFlag := strings.Contains(msg, "unknown shorthand flag: 'w'") || strings.Contains(msg, "unknown flag: --watch")
	if c.Name() == "list" && watchFlag {
		return ": list reads the collection once; to watch it as kubectl get -w does, use the watch command with the same arguments and --rv list (it lists first, then watches from the list's RV)"
	}
	return ""
}
