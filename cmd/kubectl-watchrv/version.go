package main

import (
	"context"
	"fmt"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// versionBound is version's own time bound of /version when no
// --request-timeout is given (docs/requests.md), named so where it ends
// the request.
const (
	versionBound     = 5 * time.Second
	versionBoundName = "version's own bound, which a --request-timeout replaces"
)

// VersionOptions prints the plugin version and, when reachable, the server's.
type VersionOptions struct {
	*RootOptions
	outputFlags
	Client bool
}

func newVersionCommand(root *RootOptions) *cobra.Command {
	return versionCommand(&VersionOptions{RootOptions: root})
}

// versionCommand wires the command and its flags to o (tests build o themselves).
func versionCommand(o *VersionOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the plugin version and the API server's version",
		Long: `Print the plugin's version and the API server's (GET /version). The
plugin's version is printed even when the server cannot be reached; the
exit code then says why, as for every command (--client asks nothing).

` + exitCodesHelp,
		Example: `  kubectl watchrv version
  kubectl watchrv version --client
  kubectl watchrv version -o json`,
		Args: noArgs,
	}
	o.outputFlags = newOutputFlags(render.FormatJSON, render.FormatYAML)
	o.addOutputFlag(cmd.Flags())
	cmd.Flags().BoolVar(&o.Client, "client", false, "Print the plugin version only, do not contact the server")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := o.Complete(cmd, args); err != nil {
			return err
		}
		if err := o.Validate(cmd); err != nil {
			return err
		}
		return o.Run(cmd.Context())
	}
	return cmd
}

// Complete has nothing to fill in: version takes no arguments.
func (o *VersionOptions) Complete(*cobra.Command, []string) error { return nil }

// Validate checks the flags.
func (o *VersionOptions) Validate(cmd *cobra.Command) error {
	if err := o.validateOutput(); err != nil {
		return usageErrorf(cmd, "%v", err)
	}
	return nil
}

// Run prints the versions. The plugin's own version is printed even when
// the server cannot be reached; the exit code then says why (4, 5, 6 ...),
// as for every other command, so a script can tell.
func (o *VersionOptions) Run(ctx context.Context) error {
	info := render.VersionInfo{ClientVersion: version}
	var serr error
	if !o.Client {
		if c, err := o.RootOptions.Client(); err != nil {
			serr = err
		} else {
			if !o.requestTimeoutGiven() {
				// A server that takes the connection and says nothing
				// must not hold a version check for AnswerWait; a
				// --request-timeout given replaces this bound, as it
				// bounds every other request (user try 22 #4: cut at
				// 5 s with --request-timeout 8s, "raise it").
				var cancel context.CancelFunc
				ctx, cancel = apiclient.WithRequestBound(ctx, versionBound, versionBoundName)
				defer cancel()
			}
			if v, err := c.ServerVersion(ctx); err != nil {
				serr = o.requestError(err, "get", "/version")
			} else {
				info.ServerVersion = v.GitVersion
			}
		}
	}
	if serr != nil {
		info.ServerError = text.OneLine(serr.Error())
	}
	if err := o.Printer(o.Output).Version(info); err != nil {
		return err
	}
	if serr != nil {
		return fmt.Errorf("server version unavailable: %w", serr)
	}
	return nil
}
