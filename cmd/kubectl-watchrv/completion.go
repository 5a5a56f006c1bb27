package main

import (
	"github.com/spf13/cobra"
)

func newCompletionCommand(o *RootOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print a completion script for the given shell.

For kubectl to complete "kubectl watchrv ...", install the script as the
kubectl_complete-watchrv helper or source it directly.`,
		Example: `  source <(kubectl watchrv completion bash)
  kubectl watchrv completion zsh > "${fpath[1]}/_kubectl-watchrv"`,
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf(cmd, "name one shell: bash, zsh, fish or powershell")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(o.Out, true)
			case "zsh":
				return root.GenZshCompletion(o.Out)
			case "fish":
				return root.GenFishCompletion(o.Out, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(o.Out)
			}
			return usageErrorf(cmd, "unknown shell %q: use bash, zsh, fish or powershell", args[0])
		},
	}
}
