package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// VersionOptions prints the plugin version and, when reachable, the server's.
type VersionOptions struct {
	*RootOptions
	Output string
	Client bool
}

type versionInfo struct {
	ClientVersion string `json:"clientVersion"`
	ServerVersion string `json:"serverVersion,omitempty"`
	ServerError   string `json:"serverError,omitempty"`
}

func newVersionCommand(root *RootOptions) *cobra.Command {
	o := &VersionOptions{RootOptions: root}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the plugin version and the API server's version",
		Example: `  kubectl watchrv version
  kubectl watchrv version --client
  kubectl watchrv version -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(cmd); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: json or yaml")
	cmd.Flags().BoolVar(&o.Client, "client", false, "Print the plugin version only, do not contact the server")
	return cmd
}

// Validate checks the flags.
func (o *VersionOptions) Validate(cmd *cobra.Command) error {
	if err := render.ValidateFormat(o.Output, render.FormatJSON, render.FormatYAML); err != nil {
		return usageErrorf(cmd, "%v", err)
	}
	return nil
}

// Run prints the versions. An unreachable server is not an error here: the
// plugin's own version is still worth printing.
func (o *VersionOptions) Run(ctx context.Context) error {
	info := versionInfo{ClientVersion: version}
	if !o.Client {
		if c, err := o.RootOptions.Client(); err != nil {
			info.ServerError = oneLine(err.Error())
		} else {
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			if v, err := c.ServerVersion(ctx); err != nil {
				info.ServerError = oneLine(err.Error())
			} else {
				info.ServerVersion = v
			}
		}
	}
	p := o.Printer(o.Output)
	if p.Machine() {
		return p.Object(info)
	}
	fmt.Fprintf(p.Out, "Plugin Version: %s\n", info.ClientVersion)
	if info.ServerVersion != "" {
		fmt.Fprintf(p.Out, "Server Version: %s\n", info.ServerVersion)
	} else if info.ServerError != "" {
		p.Warnf("server version unavailable: %s", info.ServerError)
	}
	return nil
}
