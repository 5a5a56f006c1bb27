package framework

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// The ports given to child servers are never ones the kernel gives to an
// outgoing connection, never given twice, and stay reserved against every
// other test binary (a second open of the lock file is what another process
// sees).
func TestServerPortsAreOutsideTheEphemeralRangeAndReserved(t *testing.T) {
	low := ephemeralLow()
	seen := map[int]bool{}
	for i := 0; i < 50; i++ {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		if port < portFloor || port >= low {
			t.Fatalf("port %d is outside [%d, %d)", port, portFloor, low)
		}
		if seen[port] {
			t.Fatalf("port %d was given twice", port)
		}
		seen[port] = true
		f, err := os.Open(filepath.Join(os.TempDir(), "watchrv-ports", strconv.Itoa(port)))
		if err != nil {
			t.Fatal(err)
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		f.Close()
		if err == nil {
			t.Fatalf("port %d is not reserved against another process", port)
		}
		if !listenable("127.0.0.1", port) {
			t.Fatalf("port %d was given while something listens on it", port)
		}
	}
}
