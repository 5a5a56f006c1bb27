package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// runPlugin prints the command line as a user would type it, then runs the
// plugin with the demo's kubeconfig and shows its output as it comes.
func (d *demo) runPlugin(args ...string) error {
	return d.runPluginWith(d.cluster.Kubeconfig, args...)
}

// runPluginWith runs the plugin with another cluster's kubeconfig.
func (d *demo) runPluginWith(kubeconfig string, args ...string) error {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	fmt.Printf("\n$ kubectl watchrv %s\n", strings.Join(quoted, " "))
	cmd := exec.CommandContext(d.ctx, d.plugin, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stdout
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			fmt.Printf("(exit code %d)\n", ee.ExitCode())
			return nil
		}
		return err
	}
	return nil
}

// shellQuote quotes an argument the way a user would type it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t'\"$()*?[]{}<>|&;\\!`") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
