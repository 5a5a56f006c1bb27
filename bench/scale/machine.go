package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// Machine is where the figures were taken.
type Machine struct {
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpuModel"`
	MemTotal  string `json:"memTotal"`
	Kernel    string `json:"kernel"`
	Kubectl   string `json:"kubectl"`
	Plugin    string `json:"plugin"`
	LoadStart string `json:"loadStart"`
	LoadEnd   string `json:"loadEnd"`
}

func machine() Machine {
	m := Machine{CPUs: runtime.NumCPU()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				var kb float64
				fmt.Sscanf(strings.TrimSpace(v), "%f", &kb)
				m.MemTotal = fmt.Sprintf("%.0f GiB", kb/(1<<20))
				break
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := exec.Command("kubectl", "version", "--client").Output(); err == nil {
		m.Kubectl = "kubectl " + strings.TrimPrefix(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]), "Client Version: ")
	}
	if b, err := exec.Command("kubectl", "watchrv", "version", "--client").Output(); err == nil {
		m.Plugin = strings.TrimPrefix(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]), "Plugin Version: ")
	}
	return m
}

// loadavg is /proc/loadavg's three load averages (what uptime prints).
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
