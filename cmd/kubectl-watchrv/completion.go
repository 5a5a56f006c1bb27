package main

import (
	"io"

	"github.com/spf13/cobra"
)

func newCompletionCommand(o *RootOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "completion kubectl|bash|zsh|fish|powershell",
		Short: "Print a shell completion script, or kubectl's completion helper",
		Long: `Print a completion script.

"kubectl watchrv <TAB>" is completed by kubectl itself (1.26 and later) once
an executable named kubectl_complete-watchrv is on the PATH: "completion
kubectl" prints it. Resource names complete too (from the server's
discovery). For "kubectl-watchrv <TAB>" (the plugin binary called directly),
source the script of your shell.

Exit codes: 0 the script was printed; 2 no shell or an unknown one.
Completing itself (the hidden __complete command the scripts call) never
fails: a cluster that cannot be reached gives no candidates.`,
		Example: `  # kubectl watchrv <TAB>
  kubectl watchrv completion kubectl > ~/.local/bin/kubectl_complete-watchrv
  chmod +x ~/.local/bin/kubectl_complete-watchrv

  # kubectl-watchrv <TAB>
  source <(kubectl watchrv completion bash)
  kubectl watchrv completion zsh > "${fpath[1]}/_kubectl-watchrv"`,
		ValidArgs: []string{"kubectl", "bash", "zsh", "fish", "powershell"},
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf(cmd, "name one shell: kubectl, bash, zsh, fish or powershell")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "kubectl":
				_, err := io.WriteString(o.Out, kubectlCompletionHelper)
				return err
			case "bash":
				return root.GenBashCompletionV2(o.Out, true)
			case "zsh":
				return root.GenZshCompletion(o.Out)
			case "fish":
				return root.GenFishCompletion(o.Out, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(o.Out)
			}
			return usageErrorf(cmd, "unknown shell %q: use kubectl, bash, zsh, fish or powershell", args[0])
		},
	}
}
