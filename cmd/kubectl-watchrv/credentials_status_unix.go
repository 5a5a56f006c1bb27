//go:build unix

package main

import (
	"syscall"
)

// statusOpenFlags never block and never follow a link: the plugin can
// replace the status file (its path is in the relay's argv) with a FIFO,
// whose blocking open waits for a partner for ever (adversary try 47 F1:
// the run locked up past every bound and signal), or with a link.
const statusOpenFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
