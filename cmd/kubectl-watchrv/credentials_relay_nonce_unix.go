//go:build unix

package main

import (
	"io"
	"os"
	"strconv"
	"syscall"
)

// relayNonceFDEnv names the descriptor that carries the run's nonce across
// the relay's re-exec (takeRelayNonce): a number, no secret.
const relayNonceFDEnv = "KUBECTL_WATCHRV_RELAY_NONCE_FD"

// takeRelayNonce is the run's nonce, taken where the plugin cannot read
// it (adversary try 22 F12). client-go starts the relay with exec.Cmd and
// gives it only argv, an environment and stdout (stdin only for an
// interactive plugin, no ExtraFiles): the nonce comes in the environment,
// and a process's initial environment stays readable, by every process
// of the same user, in /proc/PID/environ (ps eww on BSD and macOS), after
// os.Unsetenv, which changes only Go's copy: the plugin read it from
// /proc/$PPID/environ and forged a verdict. So the relay, before it
// starts the plugin, writes the nonce into a pipe, keeps only the pipe's
// read end across exec, and executes itself again without the nonce in
// its environment; run again, it reads the nonce and closes the pipe. The
// plugin then finds it in no environment, argument or open descriptor of
// the relay, and the status file never holds it.
//
// What still reaches it, and no mechanism within a user's processes
// keeps from one: a process that can debug the relay or the run (ptrace,
// /proc/PID/mem: the same user's, where Yama's ptrace_scope is 0), which
// can make the run print anything; and a process an earlier run of the
// plugin left running that reads the relay's environment in the instant
// before its re-exec.
func takeRelayNonce() string {
	if fd := os.Getenv(relayNonceFDEnv); fd != "" {
		_ = os.Unsetenv(relayNonceFDEnv)
		n, err := strconv.Atoi(fd)
		if err != nil || n < 3 {
			return ""
		}
		f := os.NewFile(uintptr(n), "relay nonce")
		b, _ := io.ReadAll(io.LimitReader(f, 64))
		f.Close()
		return string(b)
	}
	nonce := os.Getenv(relayNonceEnv)
	_ = os.Unsetenv(relayNonceEnv)
	if nonce == "" {
		return ""
	}
	self, err := os.Executable()
	if err != nil {
		return nonce // the nonce stays in this environment, as before
	}
	// syscall.Pipe's descriptors are not closed on exec (os.Pipe's are):
	// the read end is to survive it, the write end is closed first.
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		return nonce
	}
	_, werr := syscall.Write(p[1], []byte(nonce)) // 32 bytes: within the pipe's buffer
	syscall.Close(p[1])
	if werr == nil {
		err = syscall.Exec(self, os.Args, append(os.Environ(), relayNonceFDEnv+"="+strconv.Itoa(p[0])))
	}
	// Not executed: the relay goes on as it is, the nonce in its
	// environment.
	syscall.Close(p[0])
	return nonce
}
