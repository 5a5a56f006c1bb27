// Package suggest builds every command line the plugin suggests ("Watch
// from here", "see: ... --servers", the one command per type of a
// refused multi-type argument). A suggestion is pasted into a shell, so it
// must reach the same cluster as the same user and read the same narrowed
// collection as the command that printed it: it carries every kubeconfig
// flag the user gave (cli-runtime's ConfigFlags, and KUBECONFIG when that
// chose the file), the namespace or -A, the selectors and the NAME, each
// word shell-quoted. A secret (--token, a password in a URL)
// is never printed: the line reads it from an environment variable and a
// note says which. A --rv the plugin would refuse (internal/rv) is never
// suggested: Command returns an error instead of the line.
package suggest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Prefix is how a user runs the plugin: through kubectl, which finds
// kubectl-watchrv on the PATH.
const Prefix = "kubectl watchrv"

// Context is what a suggested command carries from the user's own: the
// connection (every kubeconfig flag given, KUBECONFIG) as argv words.
// The zero Context carries nothing (the kubeconfig's defaults).
type Context struct {
	env   []string // NAME=value words the line starts with
	flags []string // the connection flags, as argv words
	notes []string // what the user must do before pasting (a secret not printed)
	// endpoints is the user's --endpoints (host:port,...): the servers a
	// per-server view dials. A suggested --servers becomes --endpoints
	// with it (Command), since the EndpointSlices may not list them.
	endpoints string
}

// serversFlag is the plugin's flag of the per-server view, and
// endpointsFlag the one that names its servers by hand (and implies it).
const (
	serversFlag   = "servers"
	endpointsFlag = "endpoints"
)

// secretEnv names the environment variable a suggestion reads a secret
// flag from: the value itself is never printed.
var secretEnv = map[string]string{"token": "WATCHRV_TOKEN"}

// urlFlags may hold a password (https://user:pw@host) or a token in a query:
// printed as given only when text.RedactURL leaves them unchanged.
var urlFlags = map[string]string{
	"server":    "WATCHRV_SERVER",
	"proxy-url": "WATCHRV_PROXY_URL",
}

// pathFlags name files: made absolute, so that a suggestion works from any
// directory, as kubectl resolves them against the working directory.
var pathFlags = map[string]bool{
	"kubeconfig": true, "certificate-authority": true, "client-certificate": true, "client-key": true, "cache-dir": true,
}

// connectionFlags is every flag of cli-runtime's ConfigFlags but
// --namespace (a Scope carries it), kubeconfig and context first, then in
// name order: read from cli-runtime itself, so a flag it adds is carried
// too.
var connectionFlags = func() []string {
	fs := pflag.NewFlagSet("suggest", pflag.ContinueOnError)
	genericclioptions.NewConfigFlags(true).AddFlags(fs)
	names := []string{"kubeconfig", "context"}
	var rest []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name != "kubeconfig" && f.Name != "context" && f.Name != "namespace" {
			rest = append(rest, f.Name)
		}
	})
	sort.Strings(rest)
	return append(names, rest...)
}()

// From reads the user's context from the parsed flags of the running
// command (fs: the command's flags, the inherited kubeconfig flags among
// them) and the environment (getenv; os.Getenv in the plugin). A relative
// path is made absolute against the working directory.
func From(fs *pflag.FlagSet, getenv func(string) string) Context {
	var c Context
	for _, name := range connectionFlags {
		f := fs.Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		for _, v := range values(f) {
			c.add(name, v, f.Value.Type() == "bool")
		}
	}
	if f := fs.Lookup(endpointsFlag); f != nil && f.Changed {
		c.endpoints = strings.Join(values(f), ",")
	}
	if f := fs.Lookup("kubeconfig"); (f == nil || !f.Changed) && getenv != nil {
		// KUBECONFIG chose the file: a line pasted where KUBECONFIG is
		// not set, or set to another file, would reach another cluster.
		var files []string
		for _, p := range filepath.SplitList(getenv("KUBECONFIG")) {
			// A file that does not exist is skipped, as client-go's
			// loader skips it (and --kubeconfig would refuse it).
			if _, err := os.Stat(p); p != "" && err == nil {
				files = append(files, absPath(p))
			}
		}
		switch len(files) {
		case 0:
		case 1:
			c.flags = append([]string{"--kubeconfig", files[0]}, c.flags...)
		default:
			// --kubeconfig takes one file; several are merged only
			// through KUBECONFIG.
			c.env = append(c.env, "KUBECONFIG="+strings.Join(files, string(filepath.ListSeparator)))
		}
	}
	return c
}

func values(f *pflag.Flag) []string {
	if s, ok := f.Value.(pflag.SliceValue); ok {
		return s.GetSlice()
	}
	return []string{f.Value.String()}
}

func (c *Context) add(name, v string, isBool bool) {
	switch {
	case isBool && v == "true":
		c.flags = append(c.flags, "--"+name)
		return
	case isBool:
		c.flags = append(c.flags, "--"+name+"="+v)
		return
	case secretEnv[name] != "":
		c.hide(name, secretEnv[name])
		return
	case urlFlags[name] != "" && text.RedactURL(v) != v:
		c.hide(name, urlFlags[name])
		return
	case pathFlags[name] && v != "":
		v = absPath(v)
	}
	c.flags = append(c.flags, "--"+name, v)
}

// hide puts "$ENV" where the value of flag name would be: the shell
// expands it when the line is pasted, and the note says to set it.
func (c *Context) hide(name, env string) {
	c.flags = append(c.flags, "--"+name, envMark+env)
	c.notes = append(c.notes, fmt.Sprintf("--%s is not printed: set %s to it before pasting (export %s=...)", name, env, env))
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// Scope is how the user narrowed the collection.
type Scope struct {
	// Namespace is the namespace of a namespaced resource ("" with
	// AllNamespaces, or for a cluster-scoped resource).
	Namespace     string
	AllNamespaces bool
	LabelSelector string
	// FieldSelector is the user's, without NAME in it.
	FieldSelector string
	Name          string
}

func (s Scope) words() []string {
	var w []string
	if s.Name != "" {
		w = append(w, s.Name)
	}
	switch {
	case s.AllNamespaces:
		w = append(w, "-A")
	case s.Namespace != "":
		w = append(w, "-n", s.Namespace)
	}
	if s.LabelSelector != "" {
		w = append(w, "-l", s.LabelSelector)
	}
	if s.FieldSelector != "" {
		w = append(w, "--field-selector", s.FieldSelector)
	}
	return w
}

// Flag is one flag of the suggested command: --Name Value, or --Name alone
// for a boolean (Value "").
type Flag struct {
	Name, Value string
}

// RV is --rv v.
func RV(v string) Flag { return Flag{Name: "rv", Value: v} }

// Bool is a boolean flag given alone (--servers, --follow).
func Bool(name string) Flag { return Flag{Name: name} }

// Line is a suggested command: its words and what the user must know
// before pasting it.
type Line struct {
	// Env are NAME=value assignments before the command (KUBECONFIG
	// naming several files).
	Env []string `json:"env,omitempty"`
	// Args are the words after "kubectl" ("watchrv", "watch", ...), as
	// the shell passes them (a hidden secret as its $VARIABLE).
	Args []string `json:"args"`
	// Notes say what to do before pasting (set the variable of a secret).
	Notes []string `json:"notes,omitempty"`
	text  string
}

// String is the line to paste, every word shell-quoted.
func (l Line) String() string { return l.text }

// MarshalText makes a Line print as its command line in JSON and YAML.
func (l Line) MarshalText() ([]byte, error) { return []byte(l.text), nil }

// InvalidRVError says a suggestion was not made because its --rv is one the
// plugin refuses (internal/rv): a server sent an RV that is not a decimal
// resourceVersion.
type InvalidRVError struct{ RV string }

func (e *InvalidRVError) Error() string {
	return fmt.Sprintf("the server's resourceVersion %q %s (etcd-backed API servers write decimal RVs), which --rv refuses", text.Echo(e.RV), rv.Why(e.RV))
}

// Command builds the line of "kubectl watchrv VERB RESOURCE [NAME] SCOPE
// FLAGS CONTEXT". resource is the plugin's name for it (configmaps,
// widgets.example.com). A --servers is the user's --endpoints when given
// (the servers the user named, which the EndpointSlices may not list). A
// --rv the plugin would refuse is an *InvalidRVError, never a line.
func (c Context) Command(verb, resource string, s Scope, flags ...Flag) (Line, error) {
	words := []string{"watchrv", verb}
	if resource != "" {
		words = append(words, resource)
	}
	words = append(words, s.words()...)
	for _, f := range flags {
		if f.Name == "rv" && f.Value != "list" && !rv.Valid(f.Value) {
			return Line{}, &InvalidRVError{RV: f.Value}
		}
		if f.Name == serversFlag && f.Value == "" && c.endpoints != "" {
			f = Flag{Name: endpointsFlag, Value: c.endpoints}
		}
		words = append(words, "--"+f.Name)
		if f.Value != "" {
			words = append(words, f.Value)
		}
	}
	l := Line{Env: c.env, Notes: c.notes}
	var b strings.Builder
	for _, e := range c.env {
		name, v, _ := strings.Cut(e, "=")
		b.WriteString(name + "=" + Quote(v) + " ")
	}
	b.WriteString("kubectl")
	for _, w := range words {
		l.Args = append(l.Args, w)
		b.WriteString(" " + Quote(w))
	}
	for _, w := range c.flags {
		b.WriteByte(' ')
		if ref, ok := isEnvRef(w); ok {
			l.Args = append(l.Args, "$"+ref)
			b.WriteString(`"$` + ref + `"`)
			continue
		}
		l.Args = append(l.Args, w)
		b.WriteString(Quote(w))
	}
	l.text = b.String()
	return l, nil
}

// isEnvRef tells a hidden value's placeholder from a word: the flags slice
// holds plain strings, so the placeholder is marked by a prefix no flag
// value the plugin accepts has (a NUL).
func isEnvRef(w string) (string, bool) {
	if strings.HasPrefix(w, envMark) {
		return strings.TrimPrefix(w, envMark), true
	}
	return "", false
}

const envMark = "\x00env:"
