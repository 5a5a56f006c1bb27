//go:build !unix

package main

// statusOpenFlags: no FIFO can replace a file here (credentials_status_unix.go).
const statusOpenFlags = 0
