//go:build !unix

package main

import "os"

// takeRelayNonce is the run's nonce, from the relay's environment, and
// args as they are: where a process cannot execute itself again in place
// (Windows), it stays in the environment block the relay started with,
// which a process of the same user can read; the unix relay moves it out
// of there (credentials_relay_nonce_unix.go).
func takeRelayNonce(args []string) (string, []string) {
	nonce := os.Getenv(relayNonceEnv)
	_ = os.Unsetenv(relayNonceEnv)
	return nonce, args
}
