package framework

import (
	"fmt"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// A child server (etcd, kine, kube-apiserver) is told its port before it
// binds it, so between the harness's choice and the child's bind anything
// else may take that port. Two things did, and CI failed with "bind: address
// already in use":
//   - the source port of any outgoing connection: the kernel picks those
//     from ip_local_port_range, the same range a Listen on port 0 picks from;
//   - another test binary (go test runs packages in parallel) choosing the
//     same port.
// So freePort chooses below the ephemeral range, where the kernel never puts
// a source port, and reserves each port for the life of this process with a
// lock file that every test binary on the machine honours. A port is never
// handed out twice, so an API server restarted on its own port finds it free.

var ports struct {
	sync.Mutex
	held map[int]*os.File
}

// portFloor is the lowest port chosen: below it are well-known and
// registered services a developer machine may run.
const portFloor = 20000

// freePort returns a loopback port that no process listens on, outside the
// kernel's ephemeral range, reserved for this process.
func freePort() (int, error) {
	return reservePort(func(port int) bool { return listenable("127.0.0.1", port) })
}

// reservePort reserves the first random port in [portFloor, ephemeral low)
// that free accepts.
func reservePort(free func(port int) bool) (int, error) {
	low := ephemeralLow()
	if low-portFloor < 1000 {
		return 0, fmt.Errorf("the ephemeral port range starts at %d: no room below it for the test servers' ports", low)
	}
	dir := filepath.Join(os.TempDir(), "watchrv-ports")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return 0, err
	}
	ports.Lock()
	defer ports.Unlock()
	if ports.held == nil {
		ports.held = map[int]*os.File{}
	}
	for try := 0; try < 200; try++ {
		port := portFloor + rand.Intn(low-portFloor)
		if ports.held[port] != nil {
			continue
		}
		f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(port)), os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			return 0, err
		}
		// The lock is released by the kernel when this process ends, however
		// it ends: a crashed test leaves no port reserved.
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil || !free(port) {
			f.Close()
			continue
		}
		ports.held[port] = f
		return port, nil
	}
	return 0, fmt.Errorf("no free port in %d-%d after 200 tries", portFloor, low-1)
}

func listenable(host string, port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// ephemeralLow is the first port of the kernel's ephemeral range (32768 on
// Linux unless changed).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 32768
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return 32768
	}
	return n
}
