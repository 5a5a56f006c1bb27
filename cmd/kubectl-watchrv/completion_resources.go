package main

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
)

// completionTimeout bounds the requests one <TAB> sends: a slow cluster
// gives no candidates rather than a shell that hangs.
const completionTimeout = 5 * time.Second

// completionMaxNames bounds the names one <TAB> lists (completionPages pages
// of completionPageSize, metadata only), as a prompt cannot show more.
const (
	completionPageSize = 500
	completionPages    = 4
)

// completeResource completes RESOURCE with the names of the resources the
// server can list and watch (cli-runtime's cached discovery: one request the
// first time, none after); a second argument gets nothing.
func (o *RootOptions) completeResource(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return o.resourceNames(toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeResourceName completes "RESOURCE [NAME] | RESOURCE/NAME" (list,
// watch), as kubectl get does: the resource types, then the names of the
// objects of that type in the namespace of -n (or every namespace with -A).
func (o *RootOptions) completeResourceName(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	switch {
	case len(args) == 0 && strings.Contains(toComplete, "/"):
		typ, prefix, _ := strings.Cut(toComplete, "/")
		var out []string
		for _, n := range o.objectNames(cmd, typ, prefix) {
			out = append(out, typ+"/"+n)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	case len(args) == 0:
		return o.resourceNames(toComplete), cobra.ShellCompDirectiveNoFileComp
	case len(args) == 1 && !strings.Contains(args[0], "/"):
		return o.objectNames(cmd, args[0], toComplete), cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// resourceNames are the listable resources that start with prefix.
func (o *RootOptions) resourceNames(prefix string) []string {
	return inCompletionTime(func() []string { return o.discoveredNames(prefix) })
}

func (o *RootOptions) discoveredNames(prefix string) []string {
	o.boundCompletion()
	disco, err := o.ConfigFlags.ToDiscoveryClient()
	if err != nil {
		return nil
	}
	resources, _ := apiclient.ListableResources(disco, o.ledger)
	var out []string
	for _, r := range resources {
		if strings.HasPrefix(r.Name(), prefix) {
			out = append(out, r.Name())
		}
	}
	return out
}

// objectNames lists the names of resource's objects that start with
// prefix, through the plugin's one list path (metadata only, bounded).
func (o *RootOptions) objectNames(cmd *cobra.Command, resource, prefix string) []string {
	return inCompletionTime(func() []string { return o.listObjectNames(cmd, resource, prefix) })
}

func (o *RootOptions) listObjectNames(cmd *cobra.Command, resource, prefix string) []string {
	o.boundCompletion()
	ctx, cancel := completionContext(cmd)
	defer cancel()
	res, err := o.resolveResource(ctx, resource, "list")
	if err != nil {
		return nil
	}
	all, _ := cmd.Flags().GetBool("all-namespaces")
	t, err := o.targetOf(res, all)
	if err != nil {
		return nil
	}
	return o.listNames(ctx, t, prefix)
}

// completeNamespace completes -n with the cluster's namespaces.
func (o *RootOptions) completeNamespace(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	ctx, cancel := completionContext(cmd)
	defer cancel()
	ns := apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, Kind: "Namespace", Verbs: []string{"list"}}
	return inCompletionTime(func() []string { return o.listNames(ctx, apiclient.Target{Resource: ns}, toComplete) }), cobra.ShellCompDirectiveNoFileComp
}

// inCompletionTime is names(), or nothing once completionTimeout has
// passed: discovery and resolving a type make requests no context bounds,
// and a shell must not wait on them. (The process ends with the
// completion, and what is still running with it.)
func inCompletionTime(names func() []string) []string {
	ch := make(chan []string, 1)
	go func() { ch <- names() }()
	select {
	case n := <-ch:
		return n
	case <-time.After(completionTimeout):
		return nil
	}
}

func (o *RootOptions) listNames(ctx context.Context, t apiclient.Target, prefix string) []string {
	o.boundCompletion()
	client, err := o.Client()
	if err != nil {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	wo := listing.WalkOptions{PageOptions: listing.PageOptions{Limit: completionPageSize}, NoRestart: true, MaxPages: completionPages}
	_, _ = listing.Walk(ctx, client, t, wo, func(it listing.ItemMeta) {
		if strings.HasPrefix(it.Name, prefix) && !seen[it.Name] {
			seen[it.Name] = true
			names = append(names, it.Name)
		}
	})
	sort.Strings(names)
	return names
}

// boundCompletion makes every request of a completion give up after
// completionTimeout (unless --request-timeout says otherwise): discovery
// has no context of its own to bound it.
func (o *RootOptions) boundCompletion() {
	if t := o.ConfigFlags.Timeout; t != nil && (*t == "" || *t == "0") {
		*t = completionTimeout.String()
	}
}

func completionContext(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithTimeout(ctx, completionTimeout)
}

// kubectlCompletionHelper is the executable kubectl (1.26 and later) runs to
// complete "kubectl watchrv ...": it must be named kubectl_complete-watchrv
// and be on the PATH; kubectl calls it with the words to complete.
const kubectlCompletionHelper = `#!/usr/bin/env sh
# kubectl runs this to complete "kubectl watchrv ..." (kubectl 1.26+).
# Install: kubectl watchrv completion kubectl > ~/.local/bin/kubectl_complete-watchrv
#          chmod +x ~/.local/bin/kubectl_complete-watchrv   (any directory on PATH)
exec kubectl-watchrv __complete "$@"
`
