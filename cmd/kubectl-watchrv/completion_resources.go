package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// completeResource completes RESOURCE with the names of the resources the
// server can list and watch (cli-runtime's cached discovery: one request the
// first time, none after).
func (o *RootOptions) completeResource(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	disco, err := o.ConfigFlags.ToDiscoveryClient()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	resources, _ := apiclient.ListableResources(disco)
	var out []string
	for _, r := range resources {
		if strings.HasPrefix(r.Name(), toComplete) {
			out = append(out, r.Name())
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
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
