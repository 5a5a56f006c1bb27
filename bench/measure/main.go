// Command measure runs a command several times and prints, as one JSON line,
// its median and minimum wall time, its largest peak RSS (from the kernel's
// rusage, so no external tool is needed) and the size of its stdout.
//
//	measure -name rv-only -n 7 -- kubectl-watchrv list cm --rv-only
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"syscall"
	"time"
)

type result struct {
	Name        string    `json:"name"`
	Runs        int       `json:"runs"`
	MedianMs    float64   `json:"medianMs"`
	MinMs       float64   `json:"minMs"`
	PeakRSSKiB  int64     `json:"peakRSSKiB"`
	StdoutBytes int64     `json:"stdoutBytes"`
	AllMs       []float64 `json:"allMs"`
}

func main() {
	name := flag.String("name", "", "label of the measurement")
	n := flag.Int("n", 5, "repetitions")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "measure: give a command after --")
		os.Exit(2)
	}
	r := result{Name: *name, Runs: *n}
	for i := 0; i < *n; i++ {
		cmd := exec.Command(args[0], args[1:]...)
		cw := &countWriter{}
		cmd.Stdout, cmd.Stderr = cw, os.Stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "measure: %s: %v\n", *name, err)
			os.Exit(1)
		}
		ms := float64(time.Since(start).Microseconds()) / 1000
		r.AllMs = append(r.AllMs, ms)
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > r.PeakRSSKiB {
			r.PeakRSSKiB = ru.Maxrss // KiB on Linux
		}
		r.StdoutBytes = cw.n
	}
	sorted := append([]float64(nil), r.AllMs...)
	sort.Float64s(sorted)
	r.MedianMs, r.MinMs = sorted[len(sorted)/2], sorted[0]
	_ = json.NewEncoder(os.Stdout).Encode(r)
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)
