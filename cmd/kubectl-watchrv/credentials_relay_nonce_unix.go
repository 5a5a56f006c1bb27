//go:build unix

package main

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"syscall"
)

// relayNoncePipeArg, first among the relay's arguments, says that the
// relay executed itself again (takeRelayNonce) and that the nonce is in
// the pipe whose descriptor and check word follow. Only the relay writes
// this argv (syscall.Exec below): what the run or a kubeconfig sets in an
// environment decides nothing (adversary try 23 F2: a
// KUBECTL_WATCHRV_RELAY_NONCE_FD in exec.env or the user's shell made the
// relay take itself for the re-executed one, read and close the
// descriptor it named, and leave the nonce in the plugin's environment).
// The first stage's first argument is the status file's path (route),
// never this word.
const relayNoncePipeArg = "__nonce-pipe"

// takeRelayNonce is the run's nonce, taken where the plugin cannot read
// it (adversary try 22 F12), and args without what the re-exec added.
// client-go starts the relay with exec.Cmd and gives it only argv, an
// environment and stdout (stdin only for an interactive plugin, no
// ExtraFiles): the nonce comes in the environment, and a process's
// initial environment stays readable, by every process of the same user,
// in /proc/PID/environ (ps eww on BSD and macOS), after os.Unsetenv,
// which changes only Go's copy: the plugin read it from
// /proc/$PPID/environ and forged a verdict. So the relay, before it
// starts the plugin, writes a check word and the nonce into a pipe, keeps
// only the pipe's read end across exec, and executes itself again without
// the nonce in its environment, the descriptor and the check word in its
// argv; run again, it takes the nonce only from a pipe, above the
// standard descriptors, that holds that check word, and closes it. The
// plugin then finds the nonce in no environment, argument or open
// descriptor of the relay, and the status file never holds it. Whatever
// happens, the nonce is out of the environment the plugin gets (Go's
// copy, which exec.Cmd hands on).
//
// What still reaches it, and no mechanism within a user's processes
// keeps from one: a process that can debug the relay or the run (ptrace,
// /proc/PID/mem: the same user's, where Yama's ptrace_scope is 0), which
// can make the run print anything; and a process an earlier run of the
// plugin left running that reads the relay's environment in the instant
// before its re-exec.
func takeRelayNonce(args []string) (string, []string) {
	if len(args) > 0 && args[0] == relayNoncePipeArg {
		if len(args) < 3 {
			return "", nil
		}
		return nonceFromPipe(args[1], args[2]), args[3:]
	}
	nonce := os.Getenv(relayNonceEnv)
	_ = os.Unsetenv(relayNonceEnv)
	if nonce == "" {
		return "", args
	}
	self, err := os.Executable()
	if err != nil {
		return nonce, args // the nonce stays in this process's initial environment, as before
	}
	word := make([]byte, 16)
	if _, err := rand.Read(word); err != nil {
		return nonce, args
	}
	check := hex.EncodeToString(word)
	// syscall.Pipe's descriptors are not closed on exec (os.Pipe's are):
	// the read end is to survive it, the write end is closed first.
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		return nonce, args
	}
	_, werr := syscall.Write(p[1], []byte(check+nonce)) // 64 bytes: within PIPE_BUF, one write
	syscall.Close(p[1])
	if werr == nil && p[0] > 2 {
		argv := append([]string{os.Args[0], credentialRelayArg, relayNoncePipeArg, strconv.Itoa(p[0]), check}, args...)
		err = syscall.Exec(self, argv, os.Environ())
	}
	// Not executed: the relay goes on as it is, the nonce in its initial
	// environment.
	syscall.Close(p[0])
	return nonce, args
}

// nonceFromPipe reads the nonce from descriptor fd: only a pipe above the
// standard descriptors whose content starts with check, read without
// waiting (the relay wrote it all before its exec); "" otherwise, and no
// standard descriptor is read or closed.
func nonceFromPipe(fd, check string) string {
	n, err := strconv.Atoi(fd)
	if err != nil || n < 3 || len(check) != 32 {
		return ""
	}
	var st syscall.Stat_t
	if syscall.Fstat(n, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return ""
	}
	defer syscall.Close(n)
	if syscall.SetNonblock(n, true) != nil {
		return ""
	}
	b := make([]byte, 65)
	got, err := syscall.Read(n, b)
	if err != nil || got != 64 || string(b[:32]) != check {
		return ""
	}
	return string(b[32:64])
}
