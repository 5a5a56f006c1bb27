package main

import (
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd/api"

	"github.com/watchrv/kubectl-watchrv/pkg/clients"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/top"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// flagValues are the flags whose values form a fixed set: <TAB> offers
// them. The key is "command flag", or "* flag" for every command.
var flagValues = map[string][]string{
	"* rv-match":              {"NotOlderThan", "Exact"},
	"watch until":             {watchstream.EventAdded, watchstream.EventModified, watchstream.EventDeleted, watchstream.EventBookmark, watchstream.EventError},
	"watch rv":                {"0", rvList},
	"list rv":                 {"0"},
	"explain-error operation": {diagnose.OpWatch, diagnose.OpStreamingList, diagnose.OpList, diagnose.OpListExact, diagnose.OpListContinue},
	"top sort":                top.SortKeys,
	"clients watch-cache":     {clients.CacheOn, clients.CacheOff, clients.CacheUnknown},
}

// freeFlags are the value flags nothing can complete (a selector, an
// address, a secret, an RV): <TAB> offers no files. Numbers and durations
// are free too.
var freeFlags = map[string]bool{
	"as": true, "as-group": true, "as-uid": true, "as-user-extra": true, "server": true, "token": true,
	"tls-server-name": true, "proxy-url": true, "request-timeout": true, "selector": true, "field-selector": true,
	"endpoints": true, "from-rv": true, "rv": true, "server-version": true,
	"max-watchers": true, "watch-cache-sizes": true, "verbose": true,
}

// fileFlags take a path: <TAB> offers files, the shell's default.
var fileFlags = map[string]bool{
	"kubeconfig": true, "cache-dir": true, "certificate-authority": true, "client-certificate": true,
	"client-key": true, "filename": true, "template": true,
}

// registerCompletions gives every value flag of the command tree its
// completion: kubeconfig names for --context, --cluster and --user,
// namespaces for -n, resource types for --resource, the formats for -o,
// the fixed sets of flagValues, files for fileFlags, nothing for the rest.
// TestEveryValueFlagCompletes keeps it whole.
func registerCompletions(root *cobra.Command, o *RootOptions) {
	kubeconfigNames := func(pick func(*api.Config) []string) cobra.CompletionFunc {
		return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			raw, err := o.ConfigFlags.ToRawKubeConfigLoader().RawConfig()
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return withPrefix(pick(&raw), toComplete), cobra.ShellCompDirectiveNoFileComp
		}
	}
	_ = root.RegisterFlagCompletionFunc("namespace", o.completeNamespace)
	_ = root.RegisterFlagCompletionFunc("context", kubeconfigNames(func(c *api.Config) []string { return keys(c.Contexts) }))
	_ = root.RegisterFlagCompletionFunc("cluster", kubeconfigNames(func(c *api.Config) []string { return keys(c.Clusters) }))
	_ = root.RegisterFlagCompletionFunc("user", kubeconfigNames(func(c *api.Config) []string { return keys(c.AuthInfos) }))
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() == "bool" {
				return
			}
			if fn := flagCompletion(o, c, f); fn != nil {
				_ = c.RegisterFlagCompletionFunc(f.Name, fn)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if freeFlags[f.Name] {
			_ = root.RegisterFlagCompletionFunc(f.Name, noCompletion)
		}
	})
}

// flagCompletion is the completion of flag f of command c (nil: files).
func flagCompletion(o *RootOptions, c *cobra.Command, f *pflag.Flag) cobra.CompletionFunc {
	if vs, ok := flagValues[c.Name()+" "+f.Name]; ok {
		return fixedValues(vs)
	}
	if vs, ok := flagValues["* "+f.Name]; ok {
		return fixedValues(vs)
	}
	switch {
	case f.Name == "output":
		return fixedValues(outputValues(f))
	case f.Name == "resource":
		return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return o.resourceNames(toComplete), cobra.ShellCompDirectiveNoFileComp
		}
	case fileFlags[f.Name]:
		return nil
	}
	return noCompletion
}

func noCompletion(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveNoFileComp
}

func fixedValues(vs []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return withPrefix(vs, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// outputValues are the values of -o its help names, as kubectl completes
// -o: the fixed formats, then the template kinds with their "=".
func outputValues(f *pflag.Flag) []string {
	c, ok := f.Value.(*outputChoice)
	if !ok || c.flags == nil {
		return nil
	}
	vs := append([]string(nil), c.flags.formats...)
	if c.flags.wideIsDefault {
		vs = append([]string{render.FormatWide}, vs...)
	}
	return append(vs, "jsonpath=", "jsonpath-file=", "go-template=", "go-template-file=")
}

func withPrefix(vs []string, prefix string) []string {
	var out []string
	for _, v := range vs {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
